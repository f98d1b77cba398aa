// The executor runs each job as one dlp-run process (docs/runtime-contract.md)
// and maps dlp-run's status file into the job's state. It owns no job state of
// its own beyond which runners are its children: everything it needs to find a
// runner again after a daemon restart is in the JobRecord.
//
// Exactly-once starts. The controller commits a Starting record (the job
// still Queued, start_attempt incremented, no runner pid) before it calls
// Start, and the Running record with the runner's pid and start time after.
// dlp-run's output file is created by the spawned process itself, before it
// executes dlp-run. After a crash Reconcile finds a Starting job's runner by
// its --status-file argument, or in the job's cgroup (which the spawned
// process joins first) when it has not executed dlp-run yet, and adopts it;
// when none is alive, a status file
// or output file means it ran (the job is settled from its status file, or
// lost), and neither means it never ran: only then is it started again.
// Thread-compatible: the controller calls it under its own lock, except Start,
// which its loop thread calls alone while API threads may Release a job that
// never started (a no-op).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "contract/dlp_run.h"
#include "contract/status.h"
#include "contract/tenant_files.h"
#include "dlp/job.h"
#include "server/executor/cgroup.h"
#include "server/executor/run_as.h"
#include "server/executor/runner_exit_watch.h"
#include "server/store/job_store.h"

namespace dlp::server {

// What identifies one version of a file that is replaced on every write.
struct FileStamp {
  uint64_t inode = 0;
  int64_t size = 0, mtime_s = 0, mtime_ns = 0, ctime_ns = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};
// nullopt when `path` cannot be stat'ed.
std::optional<FileStamp> StampOf(const std::string& path);

struct ExecutorOptions {
  std::string jobs_dir;                          // STATE/jobs
  absl::Duration grace_period = absl::Seconds(10);  // SIGTERM -> SIGKILL
  std::string dlp_run;                              // empty: contract::FindDlpRun() at first start
  std::optional<Cgroups> cgroups;                   // unset: limits are not enforced
  // The machine has GPUs: every replica gets exactly its placed devices
  // (gpu_assignment.h), those without any an empty CUDA_VISIBLE_DEVICES.
  bool gpus = false;
  std::vector<GpuDevice> devices;  // for each device's memory (MPS limits)
};

class Executor {
 public:
  explicit Executor(ExecutorOptions options) : options_(std::move(options)) {}

  // Writes the group file and starts dlp-run in a new session, in the job's
  // cgroup, as `run_as` when set (a tenant's job: the account owns the job's
  // folder and the job gets a fresh environment) or else as dlpd's own user.
  // On success the record is Running with its runner's pid and start time. The
  // caller has committed the record's Starting state (start_attempt) first.
  absl::Status Start(JobRecord& record, const std::optional<UnixAccount>& run_as,
                     std::vector<Event>& events);

  // A tenant's replica that asks for no memory is limited to this (0: none).
  void SetTenantReplicaMemory(int64_t bytes) { tenant_replica_memory_ = bytes; }

  // From now on `on_exit` runs (on a thread of its own) whenever a runner
  // started or adopted after this call exits: the caller polls then.
  void WatchRunnerExits(std::function<void()> on_exit) {
    exits_ = std::make_unique<RunnerExitWatch>(std::move(on_exit));
  }

  // Retries removing the cgroups of finished jobs that still held processes.
  void Tidy();

  // Re-reads a Running job's status file and runner liveness, escalates a stop
  // past its grace period, enforces activeDeadlineSeconds and finalises the job
  // once dlp-run is gone. Returns whether the record changed.
  bool Poll(JobRecord& record, std::vector<Event>& events);

  // Records that a Running job is to stop: the next Poll sends SIGTERM (so the
  // request is committed before any signal), SIGKILL follows after the grace
  // period; the job ends in `final_state` with `reason`. A `final_state` of
  // Queued preempts it: the grace period is the job's own
  // (spec.preemption.gracePeriodSeconds), and once its processes are gone it
  // is Queued again with `reason`, its preemptions and restart count raised
  // (not a failure, whatever its restart policy). No-op when a stop is already
  // under way, except that a cancel or deadline overrides a preemption.
  void RequestStop(JobRecord& record, JobState final_state, const std::string& reason,
                   std::vector<Event>& events);

  // Records that a Running elastic job re-forms at record.resize_to (the
  // caller set resize_to, resize_placement and resize_reason): the next Poll
  // sends dlp-run SIGUSR1, which asks every rank to checkpoint and stop
  // (docs/runtime-contract.md), SIGKILL follows after the job's grace period;
  // once its processes are gone the job is Queued with `reforming` set, at
  // its new size, to be started again at once (executor/resize.cc). No-op
  // when a stop is already under way.
  void RequestResize(JobRecord& record, std::vector<Event>& events);

  // At daemon start, for a job the store says is Running: adopt its runner if
  // it is still the same process, else settle the job from its status file or
  // mark it Failed ("lost on daemon restart") and kill what is left. For a
  // Queued job: adopt a dlp-run that a daemon started but died before it
  // recorded the start; for a Starting one whose runner is gone, settle it as
  // above when it ran, leave it Queued only when it never ran (see above).
  void Reconcile(JobRecord& record, std::vector<Event>& events);

  // Forgets what the executor kept about a terminal job's runner; called once
  // the terminal record is committed.
  void Release(const JobRecord& record);

  contract::JobFolder Folder(const std::string& id) const { return {options_.jobs_dir + "/" + id}; }
  // The job's processes, as the kernel knows them: those in its cgroup, and
  // those in dlp-run's session (proc/session_processes.h) that run as the
  // owner of the job's folder. Never a pid from the job's status file.
  std::vector<pid_t> JobProcesses(const JobRecord& record) const;

  // The job's folder as dlpd reads it: everything in it is the job user's
  // (contract/tenant_files.h). NotFound before the job's first start.
  absl::StatusOr<contract::TenantFolder> JobFiles(const std::string& id) const {
    return contract::TenantFolder::Open(options_.jobs_dir, id);
  }
  // Removes the folder of an ended job (contract/tenant_tree.h); OK when it
  // never had one.
  absl::Status RemoveJobFiles(const std::string& id) const;
  std::string JobDir(const std::string& id) const { return Folder(id).path; }
  std::string LogDir(const std::string& id) const { return Folder(id).LogDir(); }
  std::string StatusPath(const std::string& id) const { return Folder(id).StatusFile(); }
  // dlp-run's stdout and stderr, created by the spawned process.
  static constexpr char kRunnerOutputName[] = "dlp-run.out";
  std::string RunnerOutput(const std::string& id) const {
    return absl::StrCat(JobDir(id), "/", kRunnerOutputName);
  }

 private:
  // True when the job's runner has exited (reaping it if it is our child).
  bool RunnerGone(const JobRecord& record);
  void ApplyStatus(JobRecord& record, const contract::GroupStatus& status,
                   std::vector<Event>& events);
  void Finalize(JobRecord& record, const std::optional<contract::GroupStatus>& status, bool lost,
                std::vector<Event>& events);
  // The job's status file as its runner last wrote it; nullopt when there is
  // none, or it is anything but a regular file of the job's user that parses.
  std::optional<contract::GroupStatus> ReadStatus(const std::string& id) const;
  // True when `pid` may be the runner of job `id` found by its command line.
  bool RunsAsJobRunner(pid_t pid, const std::string& id) const;
  // SIGKILL to dlp-run's group and to every process of the job (JobProcesses).
  void KillEverything(const JobRecord& record);
  // A preempted job whose processes are gone: back to Queued (see RequestStop).
  void Requeue(JobRecord& record, std::vector<Event>& events);
  // What a requeue and a re-form share: whatever is left of the run killed
  // and forgotten, the job Queued with `reason` and its replicas reset.
  void EndRun(JobRecord& record, const std::string& reason);
  static bool Preempting(const JobRecord& record);
  // A resize under way (RequestResize), and its end once the processes are
  // gone: the job Queued at its new size with `reforming` set.
  static bool Resizing(const JobRecord& record);
  void Reform(JobRecord& record, std::vector<Event>& events);
  // SIGTERM -> SIGKILL for the stop under way.
  absl::Duration GracePeriod(const JobRecord& record) const;
  void ReconcileQueued(JobRecord& record, std::vector<Event>& events);

  // Marks the replicas the OOM killer killed (reason OOMKilled); returns the
  // first, or nullptr when there was none.
  const JobReplica* MarkOomKilled(Job& job);
  // Removes the job's cgroup now or, while it is busy, from Tidy.
  void RemoveCgroup(const std::string& id);

  ExecutorOptions options_;
  std::set<std::string> cgroups_to_remove_;       // job ids
  std::map<pid_t, std::optional<int>> children_;  // runner pid -> wait status once reaped
  struct SeenStatus {
    FileStamp stamp;
    contract::GroupStatus status;
  };
  std::map<int64_t, SeenStatus> status_seen_;     // job -> its status file as last applied
  std::set<int64_t> termed_;                      // jobs already sent SIGTERM
  std::set<int64_t> killed_;                      // jobs already sent SIGKILL
  // Runners alive at daemon start, by status file: one /proc scan for every
  // Queued job that Reconcile looks at.
  std::optional<std::map<std::string, pid_t>> runners_at_start_;
  std::unique_ptr<RunnerExitWatch> exits_;  // unset: exits are found by polling
  int64_t tenant_replica_memory_ = 0;
};

}  // namespace dlp::server
