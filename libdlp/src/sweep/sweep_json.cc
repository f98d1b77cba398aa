// The JSON forms of sweeps (dlp/sweep.h): the API's wire format, and the
// stable `dlp sweep status -o json` document.
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "dlp/codec.h"
#include "dlp/status.h"
#include "dlp/sweep.h"
#include "nlohmann/json.hpp"

namespace dlp {
namespace {

using nlohmann::json;

std::string Dump(const json& j, int indent = -1) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

json OptionalNumber(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json TimeJson(const std::optional<absl::Time>& t) {
  if (!t) return nullptr;
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", *t, absl::UTCTimeZone());
}

std::optional<absl::Time> TimeFrom(const json& j) {
  absl::Time t;
  std::string err;
  if (!j.is_string() || !absl::ParseTime(absl::RFC3339_full, j.get<std::string>(), &t, &err)) {
    return std::nullopt;
  }
  return t;
}

json TrialWire(const SweepTrial& t) {
  json rungs = json::object();
  for (const auto& [r, v] : t.rungs) rungs[absl::StrCat(r)] = v;
  return {{"trial", t.number},
          {"job", t.job},
          {"params", t.params},
          {"objective", OptionalNumber(t.objective)},
          {"resource", t.resource},
          {"state", TrialStateName(t.state)},
          {"reason", t.reason},
          {"rungs", rungs},
          {"stopRequested", t.stop_requested},
          {"stoppedAt", t.stopped_at}};
}

SweepTrial TrialFrom(const json& j) {
  SweepTrial t;
  t.number = j.value("trial", 0);
  t.job = j.value("job", "");
  if (j.contains("params")) t.params = j["params"].get<TrialParams>();
  if (j.contains("objective") && j["objective"].is_number()) {
    t.objective = j["objective"].get<double>();
  }
  t.resource = j.value("resource", int64_t{0});
  t.state = ParseTrialState(j.value("state", "")).value_or(TrialState::kPending);
  t.reason = j.value("reason", "");
  if (j.contains("rungs")) {
    for (const auto& [r, v] : j["rungs"].items()) {
      int64_t rung = 0;
      if (absl::SimpleAtoi(r, &rung)) t.rungs[rung] = v.get<double>();
    }
  }
  t.stop_requested = j.value("stopRequested", false);
  t.stopped_at = j.value("stoppedAt", int64_t{0});
  return t;
}

json SpecJson(const SweepSpec& spec) {
  json parameters = json::array();
  for (const ParameterSpec& p : spec.parameters) {
    parameters.push_back({{"name", p.name},
                          {"type", std::string(ParamTypeName(p.type))},
                          {"min", p.min},
                          {"max", p.max},
                          {"steps", p.steps},
                          {"values", p.values}});
  }
  const SearchSpec& s = spec.search;
  return {{"name", spec.name},
          {"labels", spec.labels},
          {"objective",
           {{"metric", spec.objective.metric},
            {"goal", spec.objective.maximize ? "maximize" : "minimize"}}},
          {"search",
           {{"algorithm", std::string(SearchAlgorithmName(s.algorithm))},
            {"seed", s.seed},
            {"resource", s.resource},
            {"min", s.min_resource},
            {"max", s.max_resource},
            {"reductionFactor", s.reduction_factor}}},
          {"maxTrials", spec.max_trials},
          {"parallelism", spec.parallelism},
          {"parameters", parameters},
          {"template", json::parse(JobSpecToJson(spec.job))}};
}

absl::StatusOr<SweepSpec> SpecFrom(const json& j) {
  SweepSpec spec;
  spec.name = j.value("name", "");
  if (j.contains("labels")) spec.labels = j["labels"].get<std::map<std::string, std::string>>();
  const json& o = j.at("objective");
  spec.objective.metric = o.value("metric", "");
  spec.objective.maximize = o.value("goal", "maximize") != "minimize";
  const json& s = j.at("search");
  const std::string algorithm = s.value("algorithm", "random");
  if (algorithm == "grid") {
    spec.search.algorithm = SearchAlgorithm::kGrid;
  } else if (algorithm == "asha") {
    spec.search.algorithm = SearchAlgorithm::kAsha;
  } else if (algorithm != "random") {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.search.algorithm: unknown algorithm \"", algorithm, "\""));
  }
  spec.search.seed = s.value("seed", uint64_t{0});
  spec.search.resource = s.value("resource", "epoch");
  spec.search.min_resource = s.value("min", 1);
  spec.search.max_resource = s.value("max", 1);
  spec.search.reduction_factor = s.value("reductionFactor", 3);
  spec.max_trials = j.value("maxTrials", 0);
  spec.parallelism = j.value("parallelism", 1);
  for (const json& p : j.at("parameters")) {
    ParameterSpec param;
    param.name = p.value("name", "");
    const std::string type = p.value("type", "");
    if (type == "int") {
      param.type = ParamType::kInt;
    } else if (type == "float") {
      param.type = ParamType::kFloat;
    } else if (type == "logfloat") {
      param.type = ParamType::kLogFloat;
    } else if (type == "categorical") {
      param.type = ParamType::kCategorical;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("spec.parameters.", param.name, ".type: unknown type \"", type, "\""));
    }
    param.min = p.value("min", 0.0);
    param.max = p.value("max", 0.0);
    param.steps = p.value("steps", 0);
    if (p.contains("values")) param.values = p["values"].get<std::vector<std::string>>();
    spec.parameters.push_back(std::move(param));
  }
  DLP_ASSIGN_OR_RETURN(spec.job, JobSpecFromJson(j.at("template").dump()));
  return spec;
}

// Runs `body` and turns nlohmann's exceptions into InvalidArgument.
template <typename T, typename Body>
absl::StatusOr<T> Decode(std::string_view what, std::string_view text, const Body& body) {
  try {
    return body(json::parse(text));
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ", std::string(what), " JSON: ", e.what()));
  }
}

json SweepWire(const Sweep& sweep) {
  json trials = json::array();
  for (const SweepTrial& t : sweep.trials) trials.push_back(TrialWire(t));
  return {{"id", sweep.id},
          {"tenant", sweep.tenant},
          {"state", SweepStateName(sweep.state)},
          {"reason", sweep.reason},
          {"created", TimeJson(sweep.created)},
          {"finished", TimeJson(sweep.finished)},
          {"spec", SpecJson(sweep.spec)},
          {"trials", trials}};
}

absl::StatusOr<Sweep> SweepFrom(const json& j) {
  Sweep sweep;
  sweep.id = j.value("id", "");
  sweep.tenant = j.value("tenant", "");
  sweep.state = ParseSweepState(j.value("state", "")).value_or(SweepState::kRunning);
  sweep.reason = j.value("reason", "");
  if (j.contains("created")) sweep.created = TimeFrom(j["created"]);
  if (j.contains("finished")) sweep.finished = TimeFrom(j["finished"]);
  DLP_ASSIGN_OR_RETURN(sweep.spec, SpecFrom(j.at("spec")));
  for (const json& t : j.value("trials", json::array())) sweep.trials.push_back(TrialFrom(t));
  return sweep;
}

// A parameter's value as the status document shows it: numeric types as numbers.
json ParamJson(const SweepSpec& spec, const std::string& name, const std::string& text) {
  for (const ParameterSpec& p : spec.parameters) {
    double v = 0;
    if (p.name == name && p.type != ParamType::kCategorical && absl::SimpleAtod(text, &v)) {
      return v;
    }
  }
  return text;
}

json TrialStatus(const Sweep& sweep, const SweepTrial& t) {
  json params = json::object();
  for (const auto& [name, text] : t.params) params[name] = ParamJson(sweep.spec, name, text);
  return {{"job", t.job},
          {"params", params},
          {"objective", OptionalNumber(t.objective)},
          {"resource", t.resource},
          {"state", TrialStateName(t.state)},
          {"reason", t.reason},
          {"outcome", TrialOutcome(sweep, t)}};
}

}  // namespace

std::optional<size_t> BestTrial(const Sweep& sweep) {
  std::optional<size_t> best;
  for (size_t i = 0; i < sweep.trials.size(); ++i) {
    const std::optional<double>& v = sweep.trials[i].objective;
    if (!v) continue;
    if (!best) {
      best = i;
      continue;
    }
    const double b = *sweep.trials[*best].objective;
    if (sweep.spec.objective.maximize ? *v > b : *v < b) best = i;
  }
  return best;
}

std::string SweepSpecToJson(const SweepSpec& spec) { return Dump(SpecJson(spec)); }

absl::StatusOr<SweepSpec> SweepSpecFromJson(std::string_view text) {
  return Decode<SweepSpec>("sweep spec", text, [](const json& j) { return SpecFrom(j); });
}

std::string SweepToJson(const Sweep& sweep) { return Dump(SweepWire(sweep)); }

absl::StatusOr<Sweep> SweepFromJson(std::string_view text) {
  return Decode<Sweep>("sweep", text, [](const json& j) { return SweepFrom(j); });
}

std::string SweepsToJson(const std::vector<Sweep>& sweeps) {
  json list = json::array();
  for (const Sweep& s : sweeps) list.push_back(SweepWire(s));
  return Dump(json{{"sweeps", list}});
}

absl::StatusOr<std::vector<Sweep>> SweepsFromJson(std::string_view text) {
  return Decode<std::vector<Sweep>>("sweeps", text,
                                    [](const json& j) -> absl::StatusOr<std::vector<Sweep>> {
                                      std::vector<Sweep> out;
                                      for (const json& s : j.at("sweeps")) {
                                        DLP_ASSIGN_OR_RETURN(Sweep sweep, SweepFrom(s));
                                        out.push_back(std::move(sweep));
                                      }
                                      return out;
                                    });
}

std::string SweepStatusJson(const Sweep& sweep, int indent) {
  json trials = json::array();
  for (const SweepTrial& t : sweep.trials) trials.push_back(TrialStatus(sweep, t));
  const std::optional<size_t> best = BestTrial(sweep);
  json doc = {{"id", sweep.id},
              {"state", SweepStateName(sweep.state)},
              {"objective",
               {{"metric", sweep.spec.objective.metric},
                {"goal", sweep.spec.objective.maximize ? "maximize" : "minimize"}}},
              {"best", best ? TrialStatus(sweep, sweep.trials[*best]) : json(nullptr)},
              {"trials", trials}};
  return Dump(doc, indent);
}

}  // namespace dlp
