#include "server/executor/executor.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "contract/status.h"
#include "contract/tenant_tree.h"
#include "dlp/job_group.h"
#include "dlp/replica_exit.h"
#include "server/executor/process.h"
#include "server/proc/proc_file.h"
#include "server/proc/session_processes.h"

namespace dlp::server {


std::optional<FileStamp> StampOf(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return std::nullopt;  // the job's: never followed
  return FileStamp{st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                   st.st_ctim.tv_nsec};
}

absl::Status Executor::RemoveJobFiles(const std::string& id) const {
  absl::Status removed = contract::RemoveTenantFolder(options_.jobs_dir, id);
  return absl::IsNotFound(removed) ? absl::OkStatus() : removed;
}

void Executor::RemoveCgroup(const std::string& id) {
  if (!options_.cgroups) return;
  if (options_.cgroups->Remove(id)) {
    cgroups_to_remove_.erase(id);
  } else {
    cgroups_to_remove_.insert(id);
  }
}

void Executor::Tidy() {
  const std::set<std::string> pending = cgroups_to_remove_;
  for (const std::string& id : pending) RemoveCgroup(id);
}

bool Executor::RunnerGone(const JobRecord& record) {
  const auto pid = static_cast<pid_t>(record.runner_pid);
  auto child = children_.find(pid);
  if (child != children_.end()) {
    if (!child->second) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) child->second = status;
    }
    return child->second.has_value();
  }
  return !SameProcessAlive(pid, record.runner_start_time);
}

void Executor::ApplyStatus(JobRecord& record, const contract::GroupStatus& status,
                           std::vector<Event>& events) {
  const absl::Time now = absl::Now();
  // dlp-run counts on from the restarts before its launch (preemptions).
  if (status.restarts > record.job.restart_count) {
    record.job.restart_count = status.restarts;
    events.push_back(
        {now, "Restarted",
         absl::StrCat("group restarted (restart ", status.restarts - record.job.preemptions, " of ",
                      record.job.spec.restart_policy.max_restarts, ")")});
  }
  if (status.replicas.empty()) return;
  // The replicas as libdlp reads a status file (dlp/job_group.h), from the
  // status this executor read: it parses again what it just wrote.
  absl::StatusOr<std::vector<JobReplica>> replicas =
      JobReplicasFromStatusJson(contract::StatusToJson(status), "the job's status");
  if (!replicas.ok()) return;
  for (const JobReplica& rep : *replicas) {
    for (const JobReplica& old : record.job.replicas) {
      if (old.name == rep.name && old.state != JobState::kFailed &&
          rep.state == JobState::kFailed) {
        events.push_back({now, "ReplicaFailed", DescribeReplicaExit(rep)});
      }
    }
  }
  record.job.replicas = std::move(*replicas);
}

std::optional<contract::GroupStatus> Executor::ReadStatus(const std::string& id) const {
  absl::StatusOr<contract::TenantFolder> files = JobFiles(id);
  if (!files.ok()) return std::nullopt;
  absl::StatusOr<std::optional<contract::GroupStatus>> status =
      contract::ReadStatusFile(*files, contract::kStatusFileName);
  return status.ok() ? *status : std::nullopt;
}

bool Executor::RunsAsJobRunner(pid_t pid, const std::string& id) const {
  // Anyone can start a process whose command line names a job's status
  // file: dlpd's runners lead their own session, as the folder's owner.
  absl::StatusOr<contract::TenantFolder> files = JobFiles(id);
  std::optional<ProcStat> stat = ReadProcStat(pid);
  return files.ok() && stat && stat->session == pid && ProcessRealUid(pid) == files->owner();
}

std::vector<pid_t> Executor::JobProcesses(const JobRecord& record) const {
  std::set<pid_t> found;
  if (options_.cgroups) {
    for (pid_t pid : options_.cgroups->Processes(record.job.id)) found.insert(pid);
  }
  absl::StatusOr<contract::TenantFolder> files = JobFiles(record.job.id);
  if (files.ok()) {
    for (pid_t pid : SessionProcesses(static_cast<pid_t>(record.runner_pid), files->owner())) {
      found.insert(pid);
    }
  }
  found.erase(getpid());
  return {found.begin(), found.end()};
}

void Executor::KillEverything(const JobRecord& record) {
  SignalGroup(static_cast<pid_t>(record.runner_pid), SIGKILL);
  for (pid_t pid : JobProcesses(record)) kill(pid, SIGKILL);
}

bool Executor::Poll(JobRecord& record, std::vector<Event>& events) {
  if (record.job.state != JobState::kRunning) return false;
  const Job before = record.job;
  const size_t events_before = events.size();
  // Liveness first: a runner's final status is written before it exits.
  const bool gone = RunnerGone(record);
  // A status file that is the one applied last changes nothing: most rounds
  // only stat it. Every write replaces the file, so any write changes its stamp.
  std::optional<contract::GroupStatus> current;
  const std::optional<FileStamp> stamp = StampOf(StatusPath(record.job.id));
  auto seen = status_seen_.find(record.seq);
  if (!gone && stamp && seen != status_seen_.end() && seen->second.stamp == *stamp) {
    current = seen->second.status;  // applied already
  } else {
    current = ReadStatus(record.job.id);
    if (current) ApplyStatus(record, *current, events);
    if (current && stamp) status_seen_[record.seq] = {*stamp, *current};
  }
  const absl::Time now = absl::Now();
  if (gone) {
    Finalize(record, current, /*lost=*/false, events);
    return true;
  }
  // dlp-run forwards SIGTERM to every rank's process group; SIGUSR1 (a
  // resize) as a request to checkpoint and stop.
  if (record.stop_requested_us && termed_.insert(record.seq).second) {
    SignalGroup(static_cast<pid_t>(record.runner_pid), Resizing(record) ? SIGUSR1 : SIGTERM);
  }
  if (record.stop_requested_us && !killed_.contains(record.seq) &&
      now >= absl::FromUnixMicros(*record.stop_requested_us) + GracePeriod(record)) {
    killed_.insert(record.seq);
    KillEverything(record);
    events.push_back({now, "Killed", "grace period over: sent SIGKILL to every process group"});
  }
  const int64_t deadline = record.job.spec.active_deadline_seconds;
  if (!record.stop_requested_us && deadline > 0 && record.job.started &&
      now >= *record.job.started + absl::Seconds(deadline)) {
    RequestStop(record, JobState::kFailed,
                absl::StrCat("DeadlineExceeded: the job ran longer than activeDeadlineSeconds (",
                             deadline, " s)"),
                events);
  }
  return events.size() != events_before || record.job.replicas.size() != before.replicas.size() ||
         [&] {
           for (size_t i = 0; i < before.replicas.size(); ++i) {
             const JobReplica &a = before.replicas[i], &b = record.job.replicas[i];
             if (a.state != b.state || a.pid != b.pid || a.exit_code != b.exit_code ||
                 a.signal != b.signal || a.host != b.host || a.name != b.name) {
               return true;
             }
           }
           return false;
         }();
}

void Executor::RequestStop(JobRecord& record, JobState final_state, const std::string& reason,
                           std::vector<Event>& events) {
  if (record.job.state != JobState::kRunning) return;
  const absl::Time now = absl::Now();
  if (record.stop_requested_us) {
    // A cancel or a deadline turns a preemption or resize under way into the
    // job's end.
    if (!(Preempting(record) || Resizing(record)) || final_state == JobState::kQueued) return;
  } else {
    record.stop_requested_us = absl::ToUnixMicros(now);
  }
  record.stop_state = std::string(JobStateName(final_state));
  record.stop_reason = reason;
  if (final_state == JobState::kQueued) {
    events.push_back({now, "Preempting",
                      absl::StrCat(reason, ": SIGTERM, then SIGKILL after ",
                                   record.job.spec.preemption.grace_period_seconds, " s")});
    return;
  }
  events.push_back({now, final_state == JobState::kCancelled ? "CancelRequested" : "Stopping",
                    reason});
}

void Executor::Reconcile(JobRecord& record, std::vector<Event>& events) {
  if (record.job.state == JobState::kQueued) return ReconcileQueued(record, events);
  if (record.job.state != JobState::kRunning) return;
  const auto pid = static_cast<pid_t>(record.runner_pid);
  if (pid > 0 && SameProcessAlive(pid, record.runner_start_time)) {
    // A stop under way is signalled again by the first Poll.
    if (exits_) exits_->Watch(pid);
    events.push_back(
        {absl::Now(), "Adopted", absl::StrCat("dlp-run (pid ", pid, ") still running; adopted")});
    return;
  }
  std::optional<contract::GroupStatus> current = ReadStatus(record.job.id);
  if (current) ApplyStatus(record, *current, events);
  const bool settled = current && current->terminal();
  Finalize(record, current, /*lost=*/!settled, events);
}

void Executor::ReconcileQueued(JobRecord& record, std::vector<Event>& events) {
  if (!runners_at_start_) runners_at_start_ = ProcessesByArgument("--status-file");
  const std::string& id = record.job.id;
  std::optional<pid_t> runner;
  auto found = runners_at_start_->find(StatusPath(id));
  if (found != runners_at_start_->end() && RunsAsJobRunner(found->second, id)) {
    runner = found->second;
  }
  // A spawned process carries dlp-run's command line only once it executes
  // it, but it joins the job's cgroup first: one the last daemon spawned just
  // before it stopped is found there (removing the cgroup would kill it).
  absl::StatusOr<contract::TenantFolder> started = JobFiles(id);
  if (!runner && record.start_attempt > 0 && options_.cgroups &&
      !(started.ok() && started->Exists(contract::kStatusFileName))) {
    runner = RootOf(options_.cgroups->Processes(id));
  }
  if (runner) {
    record.runner_pid = *runner;
    record.runner_start_time = ProcessStartTime(*runner).value_or(0);
    if (exits_) exits_->Watch(*runner);
    record.job.state = JobState::kRunning;
    record.job.reason = "";
    record.job.started = absl::Now();
    events.push_back({*record.job.started, "Adopted",
                      absl::StrCat("dlp-run (pid ", *runner,
                                   ") was started before the daemon restarted; adopted")});
    return;
  }
  if (record.start_attempt == 0) return;  // no start was ever recorded
  // Starting, and no runner alive. The spawned process creates its output file
  // before it executes dlp-run: without it (and a status file) nothing ran.
  std::optional<contract::GroupStatus> current = ReadStatus(id);
  absl::StatusOr<contract::TenantFolder> files = JobFiles(id);
  const bool traces = files.ok() && (files->Exists(kRunnerOutputName) ||
                                     files->Exists(contract::kStatusFileName));
  if (!current && !traces) {
    events.push_back({absl::Now(), "StartRetried",
                      absl::StrCat("dlpd stopped before it started dlp-run (start ",
                                   record.start_attempt, "); the job will be started again")});
    return;
  }
  // It ran and is gone: settle it from its status file, else it is lost.
  record.job.state = JobState::kRunning;
  if (current) ApplyStatus(record, *current, events);
  const bool settled = current && current->terminal();
  Finalize(record, current, /*lost=*/!settled, events);
}

}  // namespace dlp::server
