#include "server/store/sweep_store.h"

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "dlp/status.h"
#include "server/store/job_store.h"

namespace dlp::server {
namespace {

std::optional<int64_t> Micros(const std::optional<absl::Time>& t) {
  if (!t) return std::nullopt;
  return absl::ToUnixMicros(*t);
}

std::string RungsJson(const std::map<int64_t, double>& rungs) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [r, v] : rungs) j[absl::StrCat(r)] = v;
  return j.dump();
}

std::map<int64_t, double> RungsFrom(const std::string& text) {
  std::map<int64_t, double> rungs;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return rungs;
  for (const auto& [key, value] : j.items()) {
    int64_t r = 0;
    if (absl::SimpleAtoi(key, &r) && value.is_number()) rungs[r] = value.get<double>();
  }
  return rungs;
}

TrialParams ParamsFrom(const std::string& text) {
  TrialParams params;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return params;
  for (const auto& [key, value] : j.items()) {
    if (value.is_string()) params[key] = value.get<std::string>();
  }
  return params;
}

constexpr char kSelectSweep[] =
    "SELECT id, tenant, state, reason, spec, created_us, finished_us FROM sweeps";

absl::StatusOr<Sweep> ReadSweep(const Statement& s) {
  Sweep sweep;
  sweep.id = absl::StrCat(s.Int(0));
  sweep.tenant = s.Text(1);
  sweep.state = ParseSweepState(s.Text(2)).value_or(SweepState::kRunning);
  sweep.reason = s.Text(3);
  absl::StatusOr<SweepSpec> spec = SweepSpecFromJson(s.Text(4));
  if (!spec.ok()) {
    return absl::DataLossError(absl::StrCat(
        "sweep ", sweep.id, ": its stored spec does not read back: ", spec.status().message()));
  }
  sweep.spec = std::move(*spec);
  sweep.created = absl::FromUnixMicros(s.Int(5));
  if (std::optional<int64_t> f = s.OptionalInt(6)) sweep.finished = absl::FromUnixMicros(*f);
  return sweep;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SweepStore>> SweepStore::Open(const std::string& path) {
  DLP_ASSIGN_OR_RETURN(Database db, OpenStore(path));
  return std::unique_ptr<SweepStore>(new SweepStore(std::move(db)));
}

absl::Status SweepStore::WriteTrial(int64_t sweep, const SweepTrial& t) {
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare("INSERT OR REPLACE INTO sweep_trials (sweep, trial, job, params, state, reason, "
                  "objective, resource, rungs, stop_requested) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
  s.Bind(1, sweep)
      .Bind(2, int64_t{t.number})
      .Bind(3, t.job)
      .Bind(4, nlohmann::json(t.params).dump())
      .Bind(5, std::string(TrialStateName(t.state)))
      .Bind(6, t.reason);
  if (t.objective) {
    s.BindDouble(7, *t.objective);
  } else {
    s.BindNull(7);
  }
  s.Bind(8, t.resource).Bind(9, RungsJson(t.rungs)).Bind(10, int64_t{t.stop_requested ? 1 : 0});
  DLP_RETURN_IF_ERROR(s.Run());
  DLP_ASSIGN_OR_RETURN(
      Statement stop,
      db_.Prepare(t.stopped_at > 0
                      ? "INSERT OR REPLACE INTO sweep_trial_stops (sweep, trial, rung) "
                        "VALUES (?1, ?2, ?3)"
                      : "DELETE FROM sweep_trial_stops WHERE sweep = ?1 AND trial = ?2"));
  stop.Bind(1, sweep).Bind(2, int64_t{t.number});
  if (t.stopped_at > 0) stop.Bind(3, t.stopped_at);
  return stop.Run();
}

absl::StatusOr<Sweep> SweepStore::Insert(Sweep sweep) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!sweep.created) sweep.created = absl::Now();
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare("INSERT INTO sweeps (tenant, name, state, reason, spec, "
                                   "created_us, finished_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  s.Bind(1, sweep.tenant)
      .Bind(2, sweep.spec.name)
      .Bind(3, std::string(SweepStateName(sweep.state)))
      .Bind(4, sweep.reason)
      .Bind(5, SweepSpecToJson(sweep.spec))
      .Bind(6, absl::ToUnixMicros(*sweep.created))
      .Bind(7, Micros(sweep.finished));
  DLP_RETURN_IF_ERROR(s.Run());
  const int64_t id = db_.LastInsertRowId();
  for (const SweepTrial& t : sweep.trials) DLP_RETURN_IF_ERROR(WriteTrial(id, t));
  DLP_RETURN_IF_ERROR(tx.Commit());
  sweep.id = absl::StrCat(id);
  return sweep;
}

absl::Status SweepStore::Save(const Sweep& sweep, const std::set<int>& trials) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(sweep.id, &id)) return absl::InvalidArgumentError("bad sweep id");
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare("UPDATE sweeps SET state = ?1, reason = ?2, finished_us = ?3 "
                                   "WHERE id = ?4"));
  s.Bind(1, std::string(SweepStateName(sweep.state)))
      .Bind(2, sweep.reason)
      .Bind(3, Micros(sweep.finished))
      .Bind(4, id);
  DLP_RETURN_IF_ERROR(s.Run());
  for (int number : trials) {
    if (number < 1 || static_cast<size_t>(number) > sweep.trials.size()) continue;
    DLP_RETURN_IF_ERROR(WriteTrial(id, sweep.trials[static_cast<size_t>(number) - 1]));
  }
  return tx.Commit();
}

absl::Status SweepStore::LoadTrials(Sweep& sweep) {
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare("SELECT t.trial, job, params, state, reason, objective, resource, rungs, "
                  "stop_requested, COALESCE(s.rung, 0) FROM sweep_trials t "
                  "LEFT JOIN sweep_trial_stops s ON s.sweep = t.sweep AND s.trial = t.trial "
                  "WHERE t.sweep = ?1 ORDER BY t.trial"));
  int64_t id = 0;
  (void)absl::SimpleAtoi(sweep.id, &id);
  s.Bind(1, id);
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    SweepTrial t;
    t.number = static_cast<int>(s.Int(0));
    t.job = s.Text(1);
    t.params = ParamsFrom(s.Text(2));
    t.state = ParseTrialState(s.Text(3)).value_or(TrialState::kPending);
    t.reason = s.Text(4);
    if (s.OptionalInt(5)) t.objective = s.Double(5);
    t.resource = s.Int(6);
    t.rungs = RungsFrom(s.Text(7));
    t.stop_requested = s.Int(8) != 0;
    t.stopped_at = s.Int(9);
    sweep.trials.push_back(std::move(t));
  }
  return absl::OkStatus();
}

absl::StatusOr<Sweep> SweepStore::Get(const std::string& id) {
  int64_t seq = 0;
  if (!absl::SimpleAtoi(id, &seq)) return absl::NotFoundError(absl::StrCat("no sweep ", id));
  std::lock_guard<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(absl::StrCat(kSelectSweep, " WHERE id = ?1")));
  s.Bind(1, seq);
  DLP_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no sweep ", id));
  DLP_ASSIGN_OR_RETURN(Sweep sweep, ReadSweep(s));
  DLP_RETURN_IF_ERROR(LoadTrials(sweep));
  return sweep;
}

absl::StatusOr<std::vector<Sweep>> SweepStore::List() {
  std::lock_guard<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(absl::StrCat(kSelectSweep, " ORDER BY id")));
  std::vector<Sweep> out;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    DLP_ASSIGN_OR_RETURN(Sweep sweep, ReadSweep(s));
    out.push_back(std::move(sweep));
  }
  for (Sweep& sweep : out) DLP_RETURN_IF_ERROR(LoadTrials(sweep));
  return out;
}

}  // namespace dlp::server
