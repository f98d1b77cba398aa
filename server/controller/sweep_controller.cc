#include "server/controller/sweep_controller.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "server/controller/crash_point.h"
#include "server/logs/log_reader.h"
#include "server/store/tenant_store.h"
#include "server/support/log.h"
#include "server/support/thread_guard.h"

namespace dlp::server {

// Trials as jobs of the controller, of the sweep's tenant; metrics read
// incrementally from the jobs' metrics files (the logs of older jobs).
class SweepController::Host : public TrialHost {
 public:
  explicit Host(Controller& jobs) : jobs_(jobs) {}
  void set_tenant(const std::string& tenant) { tenant_ = tenant == kOwnerTenant ? "" : tenant; }

  absl::StatusOr<std::string> Submit(const JobSpec& spec) override {
    const bool second = ++submitted_ == 2;
    if (second) CrashPointForTests("sweep-before-submit");
    DLP_ASSIGN_OR_RETURN(Job job, jobs_.Submit(spec, tenant_));
    if (second) CrashPointForTests("sweep-after-submit");
    return job.id;
  }
  absl::StatusOr<std::string> FindTrialJob(const std::string& sweep_id, int number) override {
    ListFilter filter;
    filter.labels[std::string(kSweepLabel)] = sweep_id;
    filter.labels[std::string(kTrialLabel)] = absl::StrCat(number);
    DLP_ASSIGN_OR_RETURN(std::vector<Job> jobs, jobs_.List(filter, tenant_));
    return jobs.empty() ? std::string() : jobs.front().id;
  }
  absl::StatusOr<Job> Get(const std::string& job) override { return jobs_.Get(job, tenant_); }
  absl::Status Cancel(const std::string& job, const std::string& reason) override {
    return jobs_.Cancel(job, tenant_, reason).status();
  }
  absl::StatusOr<std::vector<MetricPoint>> NewMetrics(const std::string& job, bool final) override {
    auto reader = readers_.find(job);
    if (reader == readers_.end()) {
      DLP_ASSIGN_OR_RETURN(LogFolderOpener folder, jobs_.LogFolder(job, tenant_));
      LogReaderOptions options{.folder = folder, .metrics_only = true};
      reader = readers_.emplace(job, std::make_unique<LogReader>(std::move(options))).first;
    }
    // A chunk of each file per step (LogReader), all of it once the job ended.
    std::vector<MetricPoint> points;
    do {
      for (const LogEntry& e : reader->second->ReadNew(final)) {
        std::optional<MetricPoint> p =
            MetricFromLogLine(LogLine{e.replica, e.stream, e.parsed_time, e.text});
        if (p) points.push_back(std::move(*p));
      }
    } while (final && !reader->second->caught_up());
    if (final) readers_.erase(job);
    return points;
  }

 private:
  Controller& jobs_;
  std::string tenant_;
  std::map<std::string, std::unique_ptr<LogReader>> readers_;
  int submitted_ = 0;  // submissions since dlpd started, for the crash points
};

namespace {

class StoreSaver : public SweepSaver {
 public:
  explicit StoreSaver(SweepStore& store) : store_(store) {}
  absl::Status Save(const Sweep& sweep, const std::set<int>& trials) override {
    return store_.Save(sweep, trials);
  }

 private:
  SweepStore& store_;
};

bool Visible(const Sweep& sweep, const std::string& tenant) {
  return tenant.empty() || sweep.tenant == tenant;
}

}  // namespace

SweepController::SweepController(SweepStore& store, Controller& jobs, absl::Duration poll_interval)
    : store_(store),
      jobs_(jobs),
      poll_interval_(poll_interval),
      host_(std::make_unique<Host>(jobs)),
      saver_(std::make_unique<StoreSaver>(store)),
      driver_(std::make_unique<SweepDriver>(*host_, *saver_)) {}

SweepController::~SweepController() { Shutdown(); }

std::string SweepController::Stored(const std::string& tenant) {
  return tenant.empty() ? kOwnerTenant : tenant;
}

absl::Status SweepController::Start() {
  DLP_ASSIGN_OR_RETURN(std::vector<Sweep> sweeps, store_.List());
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Sweep& s : sweeps) {
      if (SweepDriver::Active(s)) active_[s.id] = std::move(s);
    }
    if (!active_.empty()) Log(absl::StrCat(active_.size(), " sweep(s) to go on with"));
  }
  loop_ = GuardedThread("sweep controller", [this] { Loop(); });
  return absl::OkStatus();
}

void SweepController::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  stepped_.notify_all();
  if (loop_.joinable()) loop_.join();
}

void SweepController::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    work_ = false;
    for (auto it = active_.begin(); it != active_.end();) {
      Sweep& sweep = it->second;
      host_->set_tenant(sweep.tenant);
      RunGuarded(absl::StrCat("sweep ", sweep.id, ": step"), [&] {
        absl::Status stepped = driver_->Step(sweep);
        if (!stepped.ok()) Log(absl::StrCat("sweep ", sweep.id, ": ", stepped.message()));
      });
      if (!SweepDriver::Active(sweep)) {
        Log(absl::StrCat("sweep ", sweep.id, ": ", std::string(SweepStateName(sweep.state)), ": ",
                         sweep.reason));
        it = active_.erase(it);
      } else {
        ++it;
      }
    }
    stepped_.notify_all();
    wake_.wait_for(lock, absl::ToChronoMilliseconds(poll_interval_),
                   [this] { return stopping_ || work_; });
  }
}

absl::StatusOr<Sweep> SweepController::Submit(SweepSpec spec, const std::string& tenant) {
  DLP_RETURN_IF_ERROR(ValidateSweepSpec(spec));
  Sweep sweep;
  sweep.tenant = Stored(tenant);
  sweep.spec = std::move(spec);
  DLP_ASSIGN_OR_RETURN(Sweep stored, store_.Insert(std::move(sweep)));
  Log(absl::StrCat("sweep ", stored.id, " (", stored.spec.name, ") submitted"));
  std::lock_guard<std::mutex> lock(mu_);
  active_[stored.id] = stored;
  work_ = true;
  wake_.notify_all();
  return stored;
}

absl::StatusOr<Sweep> SweepController::Get(const std::string& id, const std::string& tenant) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = active_.find(id);
    if (it != active_.end()) {
      if (!Visible(it->second, tenant)) return absl::NotFoundError(absl::StrCat("no sweep ", id));
      return it->second;
    }
  }
  absl::StatusOr<Sweep> sweep = store_.Get(id);
  if (!sweep.ok()) return sweep.status();
  if (!Visible(*sweep, tenant)) return absl::NotFoundError(absl::StrCat("no sweep ", id));
  return sweep;
}

absl::StatusOr<std::vector<Sweep>> SweepController::List(const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(std::vector<Sweep> stored, store_.List());
  std::vector<Sweep> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (Sweep& s : stored) {
    if (!Visible(s, tenant)) continue;
    auto it = active_.find(s.id);
    out.push_back(it != active_.end() ? it->second : std::move(s));
  }
  return out;
}

absl::StatusOr<Sweep> SweepController::Cancel(const std::string& id, const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(Sweep seen, Get(id, tenant));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = active_.find(id);
  if (it == active_.end()) return seen;  // finished: unchanged
  DLP_RETURN_IF_ERROR(driver_->Cancel(it->second, "sweep cancelled"));
  work_ = true;
  wake_.notify_all();
  return it->second;
}

absl::StatusOr<Sweep> SweepController::Delete(const std::string& id, const std::string& tenant,
                                              bool force) {
  DLP_RETURN_IF_ERROR(Get(id, tenant).status());
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = active_.find(id);
    if (it != active_.end()) {
      if (!force) {
        return absl::FailedPreconditionError(
            absl::StrCat("sweep ", id, " is ", std::string(SweepStateName(it->second.state)),
                         " (trials not ended): cancel it first (dlp sweep cancel ", id,
                         "), or delete it with --force"));
      }
      if (it->second.state == SweepState::kRunning) {
        DLP_RETURN_IF_ERROR(driver_->Cancel(it->second, "sweep deleted"));
      }
      work_ = true;
      wake_.notify_all();
      // The loop cancels the trials' jobs and lets go of the sweep once they ended.
      const bool ended = stepped_.wait_for(lock, absl::ToChronoMilliseconds(kForcedDeleteWait),
                                           [&] { return stopping_ || !active_.contains(id); });
      if (stopping_) return absl::UnavailableError("dlpd is shutting down");
      if (!ended) {
        return absl::FailedPreconditionError(absl::StrCat(
            "sweep ", id, ": trials still running ", absl::FormatDuration(kForcedDeleteWait),
            " after its cancel; delete it again once they have ended"));
      }
    }
  }
  DLP_ASSIGN_OR_RETURN(Sweep sweep, store_.Get(id));  // as it ended
  JobGroup group{JobGroup::Kind::kSweep, 0};
  if (!absl::SimpleAtoi(sweep.id, &group.id)) {
    return absl::InternalError(absl::StrCat("sweep id ", sweep.id, " is not a number"));
  }
  std::vector<std::string> jobs;
  for (const SweepTrial& t : sweep.trials) {
    if (!t.job.empty()) jobs.push_back(t.job);
  }
  DLP_RETURN_IF_ERROR(jobs_.DeleteGroup(group, jobs, tenant));
  return sweep;
}

}  // namespace dlp::server
