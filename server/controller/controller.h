// The controller ties dlpd together: it owns the store, the scheduling policy
// and the executor, runs the control loop (poll runners, enforce stops and
// deadlines, start what fits) and serves the API's operations.
//
// Tenants: an empty tenant means the daemon's owner, who sees every job and
// whose jobs are stored under kOwnerTenant (a name no tenant can have) and run
// as dlpd's own user; any other tenant sees and submits only its own jobs,
// which run as the tenant's Unix account (run_as.h).
//
// The store is the truth: a change is committed before memory or the world
// (signals, dlp-run) follows it. A request whose change cannot be committed
// fails with Unavailable and changes nothing. What the loop observes (a runner
// exited) is kept as the working copy and committed again every round until
// the store takes it. Reads (list, get, events, usage) go through a second,
// read-only connection and never take the controller's lock.
// Thread-safe: every public method may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dlp/backend.h"
#include "dlp/job.h"
#include "dlp/pipeline.h"
#include "server/controller/explanation_board.h"
#include "server/executor/executor.h"
#include "server/monitor/usage_sampler.h"
#include "server/scheduler/fair_share_history.h"
#include "server/scheduler/policy.h"
#include "server/scheduler/queue_usage.h"
#include "server/store/job_store.h"
#include "server/store/queue_store.h"

namespace dlp::server {

struct ControllerOptions {
  ResourceVector capacity;
  // The GPUs to place replicas on (gpu_inventory.h); empty: "0".."n-1" from
  // capacity.gpu_millis.
  std::vector<GpuDevice> devices;
  absl::Duration poll_interval = absl::Milliseconds(100);
  // The Unix account a tenant's jobs run as; unset: the tenant's own name.
  UnixUserForTenant unix_user_for_tenant;
  // The configured queues (read each round from its in-memory catalog);
  // null: none, every queue a job names is implicit.
  const QueueStore* queues = nullptr;
  // The half-life of the fair-share history the policy is given
  // (fair_share_history.h); zero: none. Saved in the store every minute and
  // at Shutdown, and taken back by Start.
  absl::Duration fair_share_half_life = absl::ZeroDuration();
  // How often an elastic job may grow (Snapshot::resize_interval).
  absl::Duration resize_interval = kDefaultResizeInterval;
  // How long a started job is safe from preemption (Snapshot's).
  absl::Duration preempt_exempt_time = absl::ZeroDuration();
  // The memory of a tenant's replica that asks for none (tenant_defaults.h);
  // 0: none. The owner's jobs are left as they are.
  int64_t tenant_replica_memory = 0;
  // OK when the tenant ("" the owner) may submit as far as its disk quota
  // goes (disk_quota.h); unset: no quota.
  std::function<absl::Status(const std::string& tenant)> check_disk_quota;
};

// How long a forced deletion of a job, pipeline or sweep waits for its cancelled
// jobs to end (a job's grace period is 30 s unless its spec says otherwise).
inline constexpr absl::Duration kForcedDeleteWait = absl::Seconds(50);

class Controller {
 public:
  Controller(JobStore store, std::unique_ptr<SchedulingPolicy> policy, Executor executor,
             ControllerOptions options);
  ~Controller();  // stops the loop; jobs keep running

  // Reconciles every non-terminal job after a (re)start, then starts the loop.
  // Jobs whose stored spec cannot be read back are quarantined (Quarantine).
  absl::Status Start();
  // Stops the loop and wakes every waiter. Jobs keep running.
  void Shutdown();
  bool stopping() const;

  // A tenant's replicas without memory are limited to
  // ControllerOptions::tenant_replica_memory when they start (Executor).
  // InvalidArgument when the spec is invalid or can never fit, names an
  // unknown queue or a priority outside its queue's range, or when the tenant
  // has no Unix account to run as; PermissionDenied when the tenant may not
  // use the queue (queue_access.h); ResourceExhausted when it is at its disk
  // quota.
  absl::StatusOr<Job> Submit(JobSpec spec, const std::string& tenant);
  absl::StatusOr<Job> Get(const std::string& id, const std::string& tenant);
  // `summary`: each job's spec holds only its name, queue and labels (what a
  // listing's summary shows), which reads without parsing every spec.
  absl::StatusOr<std::vector<Job>> List(const ListFilter& filter, const std::string& tenant,
                                        bool summary = false);
  // `reason`: why it ends (a sweep's stop); empty: cancelled by the user.
  // `final_state`: Failed for a job dlpd stops (a disk quota), not the user.
  absl::StatusOr<Job> Cancel(const std::string& id, const std::string& tenant,
                             const std::string& reason = "",
                             JobState final_state = JobState::kCancelled);
  // Deletes an ended job: its files (logs, traces, output; through the trust
  // boundary), then its record and events. FailedPrecondition while it is
  // Queued or Running (`force`: it is cancelled first and deleted once it has
  // ended, within kForcedDeleteWait), while a queued job depends on it, or
  // when it belongs to a pipeline or sweep (then nothing is cancelled);
  // NotFound as Get. Its registered models stay (they are copies).
  absl::StatusOr<Job> Delete(const std::string& id, const std::string& tenant,
                             bool force = false);
  // Adds an event to the job's record (what dlpd did to it from outside the
  // loop, e.g. pruning its files). NotFound for an unknown job.
  absl::Status NoteEvent(const std::string& id, const Event& event);
  // Returns once the job is terminal, `timeout` passed or the daemon stops.
  absl::StatusOr<Job> Wait(const std::string& id, const std::string& tenant,
                           absl::Duration timeout);
  absl::StatusOr<std::vector<Event>> Events(const std::string& id, const std::string& tenant);
  // The job's log folder (NotFound as Get).
  // Opens it through the trust boundary, once the job has started.
  absl::StatusOr<std::function<absl::StatusOr<contract::TenantFolder>()>> LogFolder(
      const std::string& id, const std::string& tenant);
  // Every running job with its processes (Executor::JobProcesses), for the
  // usage sampler.
  std::vector<SampledJob> RunningJobs();
  // The job's folder, to read through (NotFound as Get, and before the job's
  // first start).
  absl::StatusOr<contract::TenantFolder> JobFiles(const std::string& id, const std::string& tenant);
  // The job's output folder, DLP_OUTPUT_DIR, to read through (NotFound as
  // Get; nullopt until the job has started).
  absl::StatusOr<std::optional<contract::TenantFolder>> OutputFolder(const std::string& id,
                                                                     const std::string& tenant);
  // Stores one sampling round (job id -> samples) in one commit, keeping the
  // newest `keep_per_replica` samples of each replica.
  absl::Status RecordUsage(const std::map<std::string, std::vector<ReplicaUsage>>& round,
                           int keep_per_replica);
  // The newest stored sample of each replica of the job (NotFound as Get).
  absl::StatusOr<std::vector<ReplicaUsage>> Usage(const std::string& id,
                                                  const std::string& tenant);
  // Why the job waits: its reason, position and estimated start, and the
  // scheduler's latest decision trace for it (empty unless Queued, or when
  // the policy gives none). NotFound as Get.
  absl::StatusOr<JobExplanation> Why(const std::string& id, const std::string& tenant);

  // Pipelines (pipelines.cc). Submit: errors as Submit's, for any of its
  // jobs; the jobs are stored in one commit, all or none. Another tenant's
  // pipeline is NotFound, as an unknown one.
  absl::StatusOr<Pipeline> SubmitPipeline(PipelineSpec spec, const std::string& tenant);
  absl::StatusOr<Pipeline> GetPipeline(const std::string& id, const std::string& tenant);
  absl::StatusOr<std::vector<Pipeline>> ListPipelines(const std::string& tenant);
  // Cancels each job not yet ended (Cancel), the last ones first.
  absl::StatusOr<Pipeline> CancelPipeline(const std::string& id, const std::string& tenant);
  // Deletes the pipeline and its jobs (DeleteGroup); returns it as it was.
  // FailedPrecondition while a job of it has not ended, unless `force`: then
  // it is cancelled first and deleted once its jobs have ended (within
  // kForcedDeleteWait, else FailedPrecondition and nothing deleted).
  absl::StatusOr<Pipeline> DeletePipeline(const std::string& id, const std::string& tenant,
                                          bool force);
  // Deletes the ended jobs `job_ids` of a pipeline or sweep (group_deletion.cc):
  // their files (as Delete), then their records with the group's rows in one
  // commit. Ids with no job are passed over. FailedPrecondition while any is
  // Queued or Running, or while a queued job outside the group depends on
  // one. Their registered models stay.
  absl::Status DeleteGroup(const JobGroup& group, const std::vector<std::string>& job_ids,
                           const std::string& tenant);
  // Until each job of `ids` has ended: FailedPrecondition naming `what` and
  // the job when `timeout` passes first.
  absl::Status WaitEnded(const std::vector<std::string>& ids, const std::string& tenant,
                         absl::Duration timeout, const std::string& what);

  // Each queue's standing now: configured queues, then those jobs name.
  std::vector<QueueStatus> QueueStatuses();
  // The number of Queued and Running jobs in `queue`.
  int ActiveJobsIn(const std::string& queue);
  // Makes the loop schedule now (after a change of the queues).
  void Reschedule();

  const ResourceVector& capacity() const { return options_.capacity; }
  // The devices placed on (empty: "0".."n-1" from capacity, or no GPUs) and
  // the milli-GPUs running jobs hold on each (by GpuDevice::id).
  std::vector<GpuDevice> Devices() const;
  std::map<std::string, int64_t> GpuUse() const;

 private:
  // FailedPrecondition when a Queued job not in `deleted_with_it` (ids)
  // depends on the job: it would be cancelled for a missing dependency.
  // mu_ held.
  absl::Status CheckNoDependents(const JobRecord& record,
                                 const std::set<std::string>& deleted_with_it);
  // The account a job of `tenant` runs as: nullopt for the owner.
  absl::StatusOr<std::optional<UnixAccount>> RunAs(const std::string& tenant) const;
  // What Submit checks of a job before storing it (queue access, that it can
  // ever fit, the tenant's account), and the record it stores.
  absl::Status Admit(const JobSpec& spec, const std::string& tenant);
  JobRecord NewRecord(JobSpec spec, const std::string& tenant) const;
  // A stored pipeline with its jobs as they stand, read through `store`.
  absl::StatusOr<Pipeline> PipelineOf(JobStore& store, const PipelineRecord& record);
  // Inserts the record through the group commit of concurrent submissions.
  absl::StatusOr<JobRecord> InsertGrouped(JobRecord record);
  // At start, for an active job whose stored spec does not read back: a
  // Queued one fails, a Running one is stopped (and fails), with the reason.
  void Quarantine(JobRecord& record, std::vector<Event>& events);
  // Locks the connection reads use (the reader, else the writer's mu_) and
  // points `store` at it.
  std::unique_lock<std::mutex> LockReader(JobStore*& store);
  // Reads through the reader connection (mu_ not held).
  absl::StatusOr<JobRecord> Read(const std::string& id, const std::string& tenant);
  absl::StatusOr<JobRecord> GetLocked(const std::string& id, const std::string& tenant);
  // Commits `changes` (with events still pending for those jobs) in one
  // transaction, then applies them to active_ and wakes waiters. Unavailable,
  // and nothing applied, when the store refuses. mu_ held.
  absl::Status Commit(std::vector<JobChange> changes);
  // Commit for what the loop observed: when the store refuses, the changes
  // become the working copy and are committed again next round. mu_ held.
  void Record(std::vector<JobChange> changes);
  void Loop();
  // One round of the loop; `lock` holds mu_ (Schedule releases it while it
  // spawns runners).
  void Tick(std::unique_lock<std::mutex>& lock);
  void Schedule(std::unique_lock<std::mutex>& lock);
  // The configured queues now (empty: none).
  std::vector<QueueConfig> ConfiguredQueues() const;
  // Applies the policy's preemptions (controller_decision.cc): each victim's
  // stop is committed in one transaction before any signal (the next poll
  // sends SIGTERM). Returns every victim named, applied or not. mu_ held.
  std::set<int64_t> Preempt(const std::vector<PreemptDecision>& preempt);
  // Applies the policy's resizes of elastic jobs (controller_resize.cc): each
  // one's stop committed before any signal, as for a preemption. mu_ held.
  void Resize(const std::vector<ResizeDecision>& resize);
  // The starts of the elastic jobs whose group is re-forming (Queued with
  // `reforming`), ahead of the policy's: they keep their resources and are
  // never decided again (controller_resize.cc). mu_ held.
  void RestartReforming();
  // After a re-formed job's start: its Resized event ("Resized 4→2 (for job
  // 17, priority 100)"); nothing for any other start.
  static void NoteReformed(JobRecord& record, std::vector<Event>& events);
  // spec.dependsOn (dependencies.cc). At submit: each entry becomes the id of
  // the job it names (a number: that job; else the tenant's newest job of
  // that name); InvalidArgument naming an unknown one.
  absl::Status ResolveDependsOn(JobSpec& spec, const std::string& tenant);
  // Each round: cancels (committed) the Queued jobs whose dependencies can
  // never be met, and returns why each of those that must still wait does.
  // mu_ held.
  std::map<int64_t, PendingExplanation> HoldDependents();
  // A dependency's state now (active_, else the store); nullopt when there is
  // no such job. mu_ held.
  std::optional<JobState> DependencyState(const std::string& id);
  // Advances the fair-share history to `snapshot.now` with its running jobs,
  // fills the snapshot's history, and saves it when a minute has passed
  // since the last save (or `save_now`). mu_ held.
  void KeepHistory(Snapshot& snapshot, bool save_now = false);
  // Puts the waiting jobs' reasons, positions and estimated starts that
  // changed on the board and saves them, and keeps their traces in memory.
  // mu_ held.
  void SaveExplanations(std::map<int64_t, PendingExplanation> waiting);
  // Writes the explanations kept in unsaved_explanations_ to the store: at
  // once when few changed, else at most every 30 s (`force`: now). mu_ held.
  void WriteExplanations(bool force);
  static constexpr size_t kExplanationsAtOnce = 256;

  // A submission waiting for its group commit (InsertGrouped).
  struct PendingInsert {
    JobRecord record;
    absl::StatusOr<JobRecord> result = absl::UnknownError("not inserted");
    bool done = false;
  };
  std::mutex insert_mu_;  // guards inserts_; taken before mu_, never inside it
  std::condition_variable inserted_;
  std::deque<PendingInsert*> inserts_;  // front: the one committing the group

  mutable std::mutex mu_;
  std::condition_variable changed_;  // any job changed
  std::condition_variable wake_;     // the loop has work now
  JobStore store_;
  std::mutex read_mu_;              // serialises reader_; never held with mu_
  std::optional<JobStore> reader_;  // unset: reads use store_ under mu_
  uint64_t generation_ = 0;         // bumped under mu_ by every commit
  std::unique_ptr<SchedulingPolicy> policy_;
  Executor executor_;
  ControllerOptions options_;
  // Queued and Running jobs: the working copy, equal to the store except for
  // jobs in unsaved_ (terminal ones stay here until committed).
  std::map<int64_t, JobRecord> active_;
  std::map<int64_t, std::vector<Event>> unsaved_;  // seq -> events not yet committed
  // Jobs whose Starting record is committed and whose runners are being
  // spawned without mu_ held; a cancel waits for them (changed_).
  std::set<int64_t> starting_;
  // Jobs preempted whose processes ended this round: not started this round.
  std::set<int64_t> requeued_;
  // The policy's latest explanation of each job it left waiting, its trace
  // for Why (kept whole: copying out the traces cost more than the lookup).
  std::map<int64_t, PendingExplanation> explained_;
  // Explanations already in active_ and on the board, not yet in the store.
  std::map<int64_t, QueuedExplanation> unsaved_explanations_;
  absl::Time explanations_written_ = absl::InfinitePast();
  absl::Time explanations_announced_ = absl::InfinitePast();
  ExplanationBoard board_;  // its own lock: readers never wait for mu_
  // Ended jobs that Queued jobs depend on (their states never change again).
  std::map<int64_t, JobState> ended_;
  FairShareHistory history_;
  absl::Time history_saved_ = absl::InfinitePast();
  // The starts of the policy's last decision not yet spawned (Schedule).
  std::deque<StartDecision> decided_starts_;
  // A job may be re-forming (true at first: the store may hold one from
  // before a restart): RestartReforming looks for them in the next round.
  bool reforming_seen_ = true;
  bool stopping_ = false;
  bool work_ = false;     // the loop has work now (a submit, a cancel)
  bool poll_now_ = true;  // poll runners this round, not at next_poll_
  absl::Time next_poll_;  // runners are polled every poll_interval, not every wake
  absl::Time next_decision_ = absl::InfinitePast();  // the policy decides again from then
  std::thread loop_;
};

// The replicas of a spec before anything runs: "worker-0", "worker-1", ...
std::vector<JobReplica> InitialReplicas(const JobSpec& spec);

}  // namespace dlp::server
