// The durable job store of dlpd: jobs, their replicas and events in SQLite
// (WAL, synchronous=FULL), so that every acknowledged write survives a crash.
// Not thread-safe: the controller serialises access.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/backend.h"
#include "dlp/job.h"
#include "server/scheduler/fair_share_history.h"
#include "server/scheduler/snapshot.h"
#include "server/store/sqlite.h"

namespace dlp::server {

// A job as dlpd keeps it: the public Job plus what the executor needs to find
// and stop its runner again after a restart.
struct JobRecord {
  Job job;
  int64_t seq = 0;                // the numeric id (job.id is its decimal form)
  int64_t runner_pid = 0;         // dlp-run's pid (also its process group)
  int64_t runner_start_time = 0;  // /proc/PID/stat starttime, to detect pid reuse
  // Each replica's GPU shares as placed at start (empty: none). A job placed
  // before schema version 7 holds its whole devices as one replica "job"
  // (migrated from the column `gpus`, dropped at version 16). job.gpu_sharing
  // says how shared devices are kept apart; both are stored in one column.
  std::vector<ReplicaPlacement> placement;
  // Starts recorded so far; each is committed before dlp-run is spawned. A
  // Queued job with start_attempt > 0 and no runner pid is Starting.
  int64_t start_attempt = 0;
  // Set once termination began (cancel, deadline or preemption): when, and the
  // final state and reason to record when the processes are gone. A stop_state
  // of Queued is a preemption: the job goes back to its queue.
  std::optional<int64_t> stop_requested_us;
  std::string stop_state;
  std::string stop_reason;
  // An elastic job resized by the scheduler (scheduler/elastic_role.h): the
  // size its group re-forms at (0: none under way), the placement it holds
  // from then on, and the event's words ("Resized 4→2 (for job 17, priority
  // 100)"). A stop_state of "Resizing" stops every rank for it; once they are
  // gone the job is Queued with `reforming` set and is started again at once
  // at job.size, holding its resources meanwhile (never re-queued). `resized`:
  // its start or last resize. Stored in the placement column (placement_codec.h).
  static constexpr char kResizingStopState[] = "Resizing";
  int resize_to = 0;
  std::vector<ReplicaPlacement> resize_placement;
  std::string resize_reason;
  bool reforming = false;
  absl::Time resized = absl::InfinitePast();
  // Non-empty when the row's spec does not read back (stored_spec.h): why.
  // The job is listed with this as its reason and never runs again; its
  // spec holds only its name and queue.
  std::string quarantine;
};

// A job's new row and the events to append with it.
struct JobChange {
  JobRecord record;
  std::vector<Event> events;
};

// Why a Queued job waits, as stored (Job::reason, position, estimated_start).
struct QueuedExplanation {
  int64_t seq = 0;
  std::string reason;
  std::optional<int> position;
  std::optional<absl::Time> estimated_start;
};

// A pipeline (kind: Pipeline) as dlpd keeps it: its jobs by name, in the
// order they were submitted (each after those it depends on).
struct PipelineRecord {
  int64_t seq = 0;
  std::string tenant;
  std::string name;
  absl::Time created;
  std::vector<std::pair<std::string, int64_t>> jobs;  // name, job seq
};

// One job of a pipeline being inserted.
struct PipelineMember {
  std::string name;
  JobRecord record;
};

// A pipeline or a sweep: jobs kept together, deleted together.
struct JobGroup {
  enum class Kind { kPipeline, kSweep };
  Kind kind = Kind::kPipeline;
  int64_t id = 0;
};

struct StoreFilter {
  std::optional<JobState> state;
  std::string queue;   // empty: any
  std::string tenant;  // empty: any
  int limit = 0;       // > 0: only the newest `limit` (still oldest first)
  int64_t before = 0;  // > 0: only ids below it
  bool active_only = false;  // Queued or Running only
  std::map<std::string, std::string> labels;  // all must match the spec's
  // Only what a listing's summary shows: each spec holds its name, queue and
  // labels only (read from the labels column, not parsed from the spec).
  bool summary = false;
};

// One resource sample of one replica of job `seq`.
struct UsageSample {
  int64_t seq = 0;
  ReplicaUsage usage;
};

class JobStore {
 public:
  // Opens (creating) the database and runs pending migrations.
  static absl::StatusOr<JobStore> Open(const std::string& path);
  // A second connection to the same database that only reads (query_only):
  // with WAL it reads the last commit without waiting for the writer, so
  // listings need not hold the connection that writes.
  absl::StatusOr<JobStore> OpenReader() const;
  JobStore(JobStore&&) = default;

  // Inserts a new job (state Queued) with its replicas and a Submitted event,
  // committed durably before returning. `record.job.spec` must be set; it is
  // stored in its canonical form (stored_spec.h), InvalidArgument when that
  // would not read back, and then nothing is written.
  absl::StatusOr<JobRecord> Insert(JobRecord record);
  // Insert of many jobs in one commit (one fsync): the group commit of
  // concurrent submissions. Results are in the order of `records`. A record
  // whose spec would not read back gets InvalidArgument and is not written;
  // the others are committed together or, when the commit fails, none is and
  // each gets that error.
  std::vector<absl::StatusOr<JobRecord>> InsertAll(std::vector<JobRecord> records);
  // Rewrites the job row and its replicas, and appends `events`, in one commit.
  absl::Status Update(const JobRecord& record, const std::vector<Event>& events = {});
  // Update of many jobs in one commit: all of them or none.
  absl::Status UpdateAll(const std::vector<JobChange>& changes);
  absl::Status AddEvent(int64_t seq, const Event& event);
  // Sets the reason, position and estimated start of many Queued jobs in one
  // commit (they change together whenever the queue moves); a job no longer
  // Queued keeps its row as it is.
  absl::Status UpdateExplanations(const std::vector<QueuedExplanation>& explanations);

  // Removes a job's row, replicas, events and usage samples in one commit
  // (job_deletion.cc). FailedPrecondition naming the pipeline or sweep it
  // belongs to (a job kept with them, as CheckDeletable says first). The
  // caller checks that the job has ended.
  absl::Status CheckDeletable(int64_t seq);
  absl::Status Delete(int64_t seq);
  // Removes a pipeline's or sweep's rows and those of `jobs` (its members,
  // as Delete removes one) in one commit. The caller checks that every one
  // has ended.
  absl::Status DeleteGroup(const JobGroup& group, const std::vector<int64_t>& jobs);

  // NotFound when there is no such job.
  absl::StatusOr<JobRecord> Get(int64_t seq);
  absl::StatusOr<std::vector<JobRecord>> List(const StoreFilter& filter);
  absl::StatusOr<std::vector<Event>> Events(int64_t seq);

  // Usage samples (usage_store.cc). AddUsage writes one sampling round in one
  // commit and, in the same commit, drops all but the newest
  // `keep_per_replica` samples of every replica it touched.
  absl::Status AddUsage(const std::vector<UsageSample>& samples, int keep_per_replica);
  // The newest sample of each replica of the job, by replica name.
  absl::StatusOr<std::vector<ReplicaUsage>> LatestUsage(int64_t seq);
  // Every retained sample of one replica, oldest first.
  absl::StatusOr<std::vector<ReplicaUsage>> UsageHistory(int64_t seq, const std::string& replica);

  // Fair-share history (queue_history_store.cc): each queue's decayed
  // average use per resource as of `at` (fair_share_history.h). Save
  // replaces what was stored, in one commit; Load returns nullopt when
  // nothing was ever saved.
  struct QueueHistory {
    absl::Time at;
    std::vector<QueueHistoryRow> rows;
  };
  absl::Status SaveQueueHistory(absl::Time at, const std::vector<QueueHistoryRow>& rows);
  absl::StatusOr<std::optional<QueueHistory>> LoadQueueHistory();

  // Pipelines (pipeline_store.cc). InsertPipeline stores the pipeline and
  // its jobs in one commit, all or none. `members` are in an order where each
  // job comes after those it depends on; `prepare` is called on each one's
  // spec with the ids of the members inserted before it (by name), to fill
  // in what refers to them. Errors as InsertAll's; nothing is written on one.
  using PrepareMember = std::function<absl::Status(
      JobSpec& spec, const std::map<std::string, std::string>& ids_by_name)>;
  absl::StatusOr<PipelineRecord> InsertPipeline(PipelineRecord pipeline,
                                                std::vector<PipelineMember>& members,
                                                const PrepareMember& prepare);
  // NotFound when there is no such pipeline.
  absl::StatusOr<PipelineRecord> GetPipeline(int64_t seq);
  // Oldest first; only `tenant`'s when not empty.
  absl::StatusOr<std::vector<PipelineRecord>> ListPipelines(const std::string& tenant);
  // The id of `tenant`'s newest job named `name` (any tenant's when empty);
  // NotFound when there is none.
  absl::StatusOr<int64_t> NewestJobNamed(const std::string& tenant, const std::string& name);
  // The ids of `tenant`'s jobs named `name` (any tenant's when empty), newest
  // first, at most `limit`.
  absl::StatusOr<std::vector<int64_t>> JobsNamed(const std::string& tenant,
                                                 const std::string& name, int limit);

  int schema_version() const { return schema_version_; }

 private:
  // One new job row with its replicas and Submitted event, inside the
  // caller's transaction; sets record.seq and record.job.id.
  absl::Status InsertRow(JobRecord& record, const std::string& spec_text);
  // One job's rows (job, replicas, events, usage), inside the caller's transaction.
  absl::Status DeleteJobRows(int64_t seq);
  JobStore(Database db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}
  // One job's UPDATE, replicas and events, inside the caller's transaction.
  absl::Status WriteJob(const JobRecord& record, const std::vector<Event>& events);
  absl::Status WriteReplicas(const JobRecord& record);
  absl::Status LoadReplicas(JobRecord& record);
  // Fills record.replicas through `select` (kSelectReplicas), reset first.
  static absl::Status ReadReplicas(Statement& select, JobRecord& record);

  Database db_;
  std::string path_;
  int schema_version_ = 0;
};

// Runs the ordered migrations on `db` up to the newest (or to version
// `up_to`: a test makes the store of an older dlpd); returns the version.
absl::StatusOr<int> MigrateSchema(Database& db, std::optional<int> up_to = std::nullopt);
// The version the newest migration produces.
int LatestSchemaVersion();
// Opens dlpd's store at `path` as each of its stores does (write-ahead log,
// every commit on disk, foreign keys enforced) and migrates it to the newest
// schema; `version` gets the schema's version when given.
absl::StatusOr<Database> OpenStore(const std::string& path, int* version = nullptr);

}  // namespace dlp::server
