#include "server/executor/executor.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "contract/env_names.h"
#include "contract/group.h"
#include "contract/tenant_tree.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "job/job_group.h"
#include "job/replica_exit.h"
#include "server/executor/gpu_assignment.h"
#include "server/executor/gpu_device_access.h"
#include "server/executor/process.h"
#include "server/executor/tenant_defaults.h"
#include "server/proc/proc_file.h"
#include "server/proc/session_processes.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/resources.h"

namespace dlp::server {
namespace {

using internal::DescribeReplicaExit;
using internal::SignalName;

// The replica whose failure failed the group: dlp-run stops the others with
// SIGTERM/SIGKILL afterwards, so prefer a non-zero exit, then another signal.
const JobReplica* FailureCause(const std::vector<JobReplica>& replicas) {
  const JobReplica* by_signal = nullptr;
  const JobReplica* any = nullptr;
  for (const JobReplica& r : replicas) {
    if (r.state != JobState::kFailed) continue;
    if (r.exit_code && *r.exit_code != 0) return &r;
    if (r.signal && *r.signal != SIGTERM && *r.signal != SIGKILL && !by_signal) by_signal = &r;
    if (!any) any = &r;
  }
  return by_signal ? by_signal : any;
}

}  // namespace

std::optional<FileStamp> StampOf(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return std::nullopt;  // the job's: never followed
  return FileStamp{st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                   st.st_ctim.tv_nsec};
}

absl::Status Executor::Start(JobRecord& record, const std::optional<UnixAccount>& run_as,
                             std::vector<Event>& events) {
  const std::string& id = record.job.id;
  const contract::JobFolder folder = Folder(id);
  // The output folder (DLP_OUTPUT_DIR) stays with the job's folder.
  for (const std::string& dir : {LogDir(id), folder.OutputDir()}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  }
  chmod(JobDir(id).c_str(), 0700);
  if (options_.dlp_run.empty()) {
    DLP_ASSIGN_OR_RETURN(options_.dlp_run, contract::FindDlpRun());
  }
  // An elastic job runs its workers at its size (elastic.h); every size
  // change re-forms the group, counted in DLP_RESIZE_COUNT.
  const JobSpec spec = SpecAtSize(record.job.spec, record.job.size);
  contract::Group group = internal::JobGroup(spec);
  if (record.job.size > 0) {
    for (contract::Role& role : group.roles) {
      role.env[contract::env::kResizeCount] = absl::StrCat(record.job.resizes);
    }
  }
  // After a preemption the ranks see DLP_RESTART_COUNT raised (they resume
  // from their checkpoint); only failures use up restartPolicy.maxRestarts.
  group.restart_count = record.job.restart_count;
  const int failure_restarts = record.job.restart_count - record.job.preemptions;
  group.max_restarts = std::max(0, spec.restart_policy.max_restarts - failure_restarts);
  // On a machine with GPUs every replica gets exactly its devices (none: "").
  const bool placed = options_.gpus || !record.placement.empty();
  std::string gpus_started;
  if (placed) {
    gpus_started = AssignJobDevices(record, options_.devices, group);
  } else if (!record.gpus.empty()) {
    gpus_started = absl::StrCat(" on GPUs ", absl::StrJoin(record.gpus, ","));
  }
  // Rewritten before every start and read by dlp-run from the page cache: a
  // crash of the machine loses the runner with it, so no fsync is needed.
  DLP_RETURN_IF_ERROR(
      contract::WriteGroupFile(folder.GroupFile(), group, base::FileSync::kVolatile));
  // dlp-run waits as long as dlpd does before its SIGKILL: a preempted job
  // gets its own grace period.
  const absl::Duration grace =
      std::max(options_.grace_period, absl::Seconds(spec.preemption.grace_period_seconds));
  contract::DlpRunCommand command = internal::ExecutorDlpRunCommand(
      options_.dlp_run, folder, id, record.job.name, grace,
      placed ? std::vector<int>{} : record.gpus);
  SpawnOptions spawn;
  spawn.argv = std::move(command.argv);
  spawn.extra_env = std::move(command.env);
  spawn.output_path = RunnerOutput(id);
  if (run_as) {
    // dlp-run writes the logs, status and traces as the account.
    for (const std::string& path :
         {JobDir(id), LogDir(id), folder.OutputDir(), folder.GroupFile()}) {
      DLP_RETURN_IF_ERROR(GiveToAccount(path, *run_as));
    }
    spawn.run_as = run_as;
    spawn.inherit_environment = false;
    spawn.extra_env.merge(AccountEnvironment(*run_as));
  }
  const absl::Time now = absl::Now();
  if (options_.cgroups) {
    JobSpec limited = record.job.spec;
    if (run_as) ApplyTenantDefaults(tenant_replica_memory_, limited);
    const ResourceVector demand = DemandOf(limited);
    int replicas = 0;
    for (const ReplicaSpec& r : record.job.spec.replicas) replicas += r.count;
    const CgroupLimits limits = JobCgroupLimits(demand.memory_bytes, demand.cpu_millis, replicas);
    absl::StatusOr<std::vector<std::string>> procs = options_.cgroups->Create(id, limits);
    if (procs.ok()) {
      spawn.cgroup_procs = std::move(*procs);
      std::string gpu_devices;
      if (placed) {
        const std::vector<int> minors = PlacedGpuMinors(record.placement, options_.devices);
        absl::Status restricted = options_.cgroups->RestrictGpus(id, minors);
        if (restricted.ok()) {
          gpu_devices = absl::StrCat(", ", DescribeGpuNodes(minors));
        } else {
          events.push_back({now, "GpuDevicesNotRestricted",
                            absl::StrCat(restricted.message(),
                                         ": the job's processes can open every GPU")});
        }
      }
      events.push_back(
          {now, "Limits",
           absl::StrCat(limits.memory_bytes > 0
                            ? absl::StrCat("memory ", FormatMemoryBytes(limits.memory_bytes))
                            : "no memory limit",
                        ", ",
                        limits.cpu_millis > 0 ? DescribeCpus(limits.cpu_millis) : "no CPU quota",
                        ", ", limits.pids, " processes", gpu_devices, " (cgroup ",
                        absl::StrJoin(options_.cgroups->Paths(id), ", "), ")")});
    } else {
      RemoveCgroup(id);
      events.push_back({now, "LimitsNotEnforced",
                        absl::StrCat("cannot set up the job's cgroup (", procs.status().message(),
                                     "): memory, CPU and process limits are not enforced")});
    }
  } else {
    events.push_back({now, "LimitsNotEnforced",
                      "dlpd has no writable cgroup: memory, CPU and process limits are not "
                      "enforced"});
  }
  absl::StatusOr<pid_t> spawned = SpawnDetached(spawn);
  if (!spawned.ok()) {
    if (options_.cgroups) RemoveCgroup(id);
    return spawned.status();
  }
  const pid_t pid = *spawned;
  children_[pid] = std::nullopt;
  if (exits_) exits_->Watch(pid);
  record.runner_pid = pid;
  record.runner_start_time = ProcessStartTime(pid).value_or(0);
  record.job.state = JobState::kRunning;
  record.job.reason = "";
  record.job.started = absl::Now();
  events.push_back({*record.job.started, "Started",
                    absl::StrCat("started dlp-run (pid ", pid, ")",
                                 run_as ? absl::StrCat(" as ", run_as->name) : "", gpus_started,
                                 record.job.gpu_sharing.empty() ? "" : "; GPU sharing: ",
                                 record.job.gpu_sharing)});
  return absl::OkStatus();
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

const JobReplica* Executor::MarkOomKilled(Job& job) {
  if (!options_.cgroups || options_.cgroups->OomKills(job.id) == 0) return nullptr;
  // The OOM killer sends SIGKILL; dlp-run's own stop of the others starts with SIGTERM.
  const JobReplica* first = nullptr;
  for (JobReplica& r : job.replicas) {
    if (r.state == JobState::kFailed && r.signal == SIGKILL) {
      r.reason = "OOMKilled";
      if (first == nullptr) first = &r;
    }
  }
  return first;
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
  std::vector<JobReplica> replicas = internal::JobReplicas(status);
  for (const JobReplica& rep : replicas) {
    for (const JobReplica& old : record.job.replicas) {
      if (old.name == rep.name && old.state != JobState::kFailed &&
          rep.state == JobState::kFailed) {
        events.push_back({now, "ReplicaFailed", DescribeReplicaExit(rep)});
      }
    }
  }
  record.job.replicas = std::move(replicas);
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

void Executor::Finalize(JobRecord& record, const std::optional<contract::GroupStatus>& status,
                        bool lost, std::vector<Event>& events) {
  Job& job = record.job;
  if (Preempting(record)) return Requeue(record, events);
  if (Resizing(record)) return Reform(record, events);
  if (record.stop_requested_us) {
    job.state = ParseJobState(record.stop_state).value_or(JobState::kCancelled);
    job.reason = record.stop_reason;
  } else if (status && status->state == contract::kSucceeded) {
    job.state = JobState::kSucceeded;
    // Empty, or why replicas were stopped (successPolicy).
    job.reason = status->reason;
    job.exit_code = 0;
  } else if (status && status->terminal()) {
    job.state = JobState::kFailed;
    const JobReplica* oom = MarkOomKilled(job);
    const JobReplica* cause = oom != nullptr ? oom : FailureCause(job.replicas);
    if (oom != nullptr) {
      job.reason = absl::StrCat("OOMKilled: ", DescribeReplicaExit(*oom),
                                ": the job reached its memory limit (",
                                FormatMemoryBytes(DemandOf(job.spec).memory_bytes), ")");
      job.exit_code = 128 + SIGKILL;
    } else if (cause != nullptr) {
      job.reason = DescribeReplicaExit(*cause);
      job.exit_code = cause->exit_code ? *cause->exit_code : 128 + cause->signal.value_or(0);
    } else {
      job.reason = status->reason.empty() ? "dlp-run reported a failure" : status->reason;
    }
  } else {
    job.state = JobState::kFailed;
    if (lost) {
      job.reason = "lost on daemon restart";
    } else {
      auto child = children_.find(static_cast<pid_t>(record.runner_pid));
      int ws = child != children_.end() ? child->second.value_or(0) : 0;
      job.reason = WIFSIGNALED(ws)
                       ? absl::StrCat("dlp-run killed by signal ", WTERMSIG(ws), " (",
                                      SignalName(WTERMSIG(ws)), ") before reporting a result")
                       : absl::StrCat("dlp-run exited with code ", WEXITSTATUS(ws),
                                      " before reporting a result");
      // The OOM killer may pick dlp-run itself rather than a replica.
      if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL && options_.cgroups &&
          options_.cgroups->OomKills(job.id) > 0) {
        job.reason = absl::StrCat("OOMKilled: ", job.reason, ": the job reached its memory limit (",
                                  FormatMemoryBytes(DemandOf(job.spec).memory_bytes), ")");
        job.exit_code = 128 + SIGKILL;
      }
    }
  }
  if (job.state != JobState::kSucceeded) KillEverything(record);
  RemoveCgroup(job.id);
  for (JobReplica& r : job.replicas) {
    if (job.state == JobState::kCancelled && r.state != JobState::kSucceeded) {
      r.state = JobState::kCancelled;
    } else if (!IsTerminal(r.state)) {
      r.state = job.state == JobState::kSucceeded ? JobState::kSucceeded : JobState::kFailed;
    }
  }
  job.finished = absl::Now();
  events.push_back({*job.finished, std::string(JobStateName(job.state)),
                    job.reason.empty() ? "job succeeded" : job.reason});
}

void Executor::Release(const JobRecord& record) {
  // Queued jobs (cancelled before they started) are released from API
  // threads while the loop may be spawning: they have nothing to forget.
  if (record.runner_pid <= 0) return;
  children_.erase(static_cast<pid_t>(record.runner_pid));
  status_seen_.erase(record.seq);
  termed_.erase(record.seq);
  killed_.erase(record.seq);
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
