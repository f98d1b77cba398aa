// Schema migrations, in order. The schema version lives in PRAGMA user_version;
// migration N takes the database from version N to N+1. Append, never edit.
#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "dlp/status.h"
#include "server/store/job_store.h"

namespace dlp::server {
namespace {

const std::vector<absl::string_view>& Migrations() {
  static const std::vector<absl::string_view> kMigrations = {
      // 0 -> 1: jobs, replicas, events. Tenant and queue from day one.
      R"sql(
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant TEXT NOT NULL DEFAULT 'default',
  queue TEXT NOT NULL DEFAULT 'default',
  priority INTEGER NOT NULL DEFAULT 0,
  name TEXT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  spec TEXT NOT NULL,
  created_us INTEGER NOT NULL,
  started_us INTEGER,
  finished_us INTEGER,
  exit_code INTEGER,
  restart_count INTEGER NOT NULL DEFAULT 0,
  runner_pid INTEGER NOT NULL DEFAULT 0,
  runner_start_time INTEGER NOT NULL DEFAULT 0,
  gpus TEXT NOT NULL DEFAULT '',
  stop_requested_us INTEGER,
  stop_state TEXT NOT NULL DEFAULT '',
  stop_reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX jobs_state ON jobs(state);
CREATE INDEX jobs_tenant_queue ON jobs(tenant, queue);
CREATE TABLE replicas (
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  ordinal INTEGER NOT NULL,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  role_index INTEGER NOT NULL,
  state TEXT NOT NULL,
  exit_code INTEGER,
  signal INTEGER,
  host TEXT NOT NULL DEFAULT '',
  pid INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (job_id, ordinal)
);
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  time_us INTEGER NOT NULL,
  type TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX events_job ON events(job_id);
)sql",
      // 1 -> 2: resource usage samples of replicas (bounded per replica by the
      // writer). NULL GPU columns: no GPU or no NVML.
      R"sql(
CREATE TABLE usage_samples (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  replica TEXT NOT NULL,
  pid INTEGER NOT NULL DEFAULT 0,
  time_us INTEGER NOT NULL,
  cpu_percent REAL NOT NULL,
  rss_bytes INTEGER NOT NULL,
  gpu_util_percent REAL,
  gpu_memory_bytes INTEGER
);
CREATE INDEX usage_samples_job ON usage_samples(job_id, replica);
)sql",
      // 2 -> 3: why a replica ended when its exit does not say ("OOMKilled").
      R"sql(
ALTER TABLE replicas ADD COLUMN reason TEXT NOT NULL DEFAULT '';
)sql",
      // 3 -> 4: tenants and their tokens (SHA-256 hashes only; tenant_store.h).
      // The owner's jobs move from 'default' (a name a tenant may take) to
      // '@owner', which no tenant name can spell.
      R"sql(
CREATE TABLE tenants (
  name TEXT PRIMARY KEY,
  unix_user TEXT NOT NULL,
  created_us INTEGER NOT NULL
);
CREATE TABLE tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_us INTEGER NOT NULL,
  expires_us INTEGER,
  revoked_us INTEGER
);
CREATE INDEX tokens_tenant ON tokens(tenant);
UPDATE jobs SET tenant = '@owner' WHERE tenant IN ('default', '');
)sql",
      // 4 -> 5: the number of the job's latest recorded start attempt. A Queued
      // job with an attempt and no runner pid is "Starting": its start was
      // committed and dlp-run may or may not have been spawned (executor.h).
      R"sql(
ALTER TABLE jobs ADD COLUMN start_attempt INTEGER NOT NULL DEFAULT 0;
)sql",
      // 5 -> 6: queues (quotas in the form "cpu=8,memory=64Gi,gpu=4"; a NULL
      // limit is none; NULL priorities are unbounded) and the tenants allowed
      // into each (queue_store.h).
      R"sql(
CREATE TABLE queues (
  name TEXT PRIMARY KEY,
  cohort TEXT NOT NULL DEFAULT '',
  nominal TEXT NOT NULL DEFAULT '',
  borrowing_limit TEXT,
  lending_limit TEXT,
  weight INTEGER NOT NULL DEFAULT 1,
  min_priority INTEGER,
  max_priority INTEGER,
  created_us INTEGER NOT NULL,
  updated_us INTEGER NOT NULL
);
CREATE TABLE queue_tenants (
  queue TEXT NOT NULL,
  tenant TEXT NOT NULL,
  PRIMARY KEY (queue, tenant)
);
CREATE INDEX queue_tenants_tenant ON queue_tenants(tenant);
)sql",
      // 6 -> 7: each started job's GPU placement, per replica (placement_codec.h).
      // Rows from before keep only `gpus` (whole devices by index), still read.
      R"sql(
ALTER TABLE jobs ADD COLUMN placement TEXT NOT NULL DEFAULT '';
)sql",
      // 7 -> 8: preemption and explanations. How often the scheduler stopped a
      // job to make room for another, and a Queued job's place in its queue
      // and estimated start (its reason is already stored).
      R"sql(
ALTER TABLE jobs ADD COLUMN preemptions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN position INTEGER;
ALTER TABLE jobs ADD COLUMN estimated_start_us INTEGER;
)sql",
      // 8 -> 9: sweeps and their trials (sweep_store.h). The spec is the
      // sweep's wire JSON; a trial's row is written before its job is
      // submitted (job '' until then), its params and rungs as JSON objects.
      // IF NOT EXISTS: a store whose version was set back re-runs it.
      R"sql(
CREATE TABLE IF NOT EXISTS sweeps (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant TEXT NOT NULL,
  name TEXT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  spec TEXT NOT NULL,
  created_us INTEGER NOT NULL,
  finished_us INTEGER
);
CREATE INDEX IF NOT EXISTS sweeps_tenant ON sweeps(tenant);
CREATE TABLE IF NOT EXISTS sweep_trials (
  sweep INTEGER NOT NULL,
  trial INTEGER NOT NULL,
  job TEXT NOT NULL DEFAULT '',
  params TEXT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  objective REAL,
  resource INTEGER NOT NULL DEFAULT 0,
  rungs TEXT NOT NULL DEFAULT '{}',
  stop_requested INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (sweep, trial)
);
)sql",
      // 9 -> 10: the model registry (model_store.h). A version's file is a
      // blob named by its SHA-256 (server/models/blob_store.h); metrics and
      // labels are JSON objects. registered_by is the tenant ('' the owner).
      // IF NOT EXISTS: a store whose version was set back re-runs it.
      R"sql(
CREATE TABLE IF NOT EXISTS models (
  tenant TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  file TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  job TEXT NOT NULL,
  job_spec TEXT NOT NULL,
  metrics TEXT NOT NULL,
  labels TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  registered_by TEXT NOT NULL,
  created_us INTEGER NOT NULL,
  PRIMARY KEY (tenant, name, version)
);
CREATE TABLE IF NOT EXISTS model_aliases (
  tenant TEXT NOT NULL,
  name TEXT NOT NULL,
  alias TEXT NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (tenant, name, alias)
);
)sql",
      // 10 -> 11: pipelines (kind: Pipeline) and their jobs by name, in
      // submission order. A job's dependencies live in its spec (dependsOn,
      // with the ids dlpd resolved); the index finds a job's pipeline.
      // IF NOT EXISTS: it applies whatever migrations come before it.
      R"sql(
CREATE TABLE IF NOT EXISTS pipelines (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant TEXT NOT NULL,
  name TEXT NOT NULL,
  created_us INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS pipelines_tenant ON pipelines(tenant);
CREATE TABLE IF NOT EXISTS pipeline_jobs (
  pipeline_id INTEGER NOT NULL REFERENCES pipelines(id),
  ordinal INTEGER NOT NULL,
  name TEXT NOT NULL,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  PRIMARY KEY (pipeline_id, ordinal)
);
CREATE INDEX IF NOT EXISTS pipeline_jobs_job ON pipeline_jobs(job_id);
CREATE INDEX IF NOT EXISTS jobs_name ON jobs(tenant, name);
)sql",
      // 11 -> 12: each job's spec.labels as a JSON object (job_labels.h), so
      // that summaries and label filters need not parse every spec. NULL until
      // JobStore::Open fills it from the spec of rows stored before.
      R"sql(
ALTER TABLE jobs ADD COLUMN labels TEXT;
)sql",
      // 12 -> 13: the fair-share history (fair_share_history.h): each
      // queue's decayed average use of each resource ("cpu", "memory",
      // "gpu", "gpu.h100") as of at_us, saved every minute and at shutdown,
      // so that a restarted dlpd goes on from it.
      R"sql(
CREATE TABLE IF NOT EXISTS queue_history (
  queue TEXT NOT NULL,
  resource TEXT NOT NULL,
  average REAL NOT NULL,
  at_us INTEGER NOT NULL,
  PRIMARY KEY (queue, resource)
);
)sql",
      // 13 -> 14: the rung ASHA stopped a trial at (a row only for such a
      // trial), so that it is ranked by its rung value and the leaderboard
      // says why. A table of its own: re-running the migration changes nothing.
      R"sql(
CREATE TABLE IF NOT EXISTS sweep_trial_stops (
  sweep INTEGER NOT NULL,
  trial INTEGER NOT NULL,
  rung INTEGER NOT NULL,
  PRIMARY KEY (sweep, trial)
);
)sql",
      // 14 -> 15: a tenant's own disk quota (dlp admin tenant update
      // --disk-quota; 0: none), a row only for a tenant that has one: the
      // others are held to dlpd's --tenant-disk-quota. A table of its own:
      // re-running the migration changes nothing.
      R"sql(
CREATE TABLE IF NOT EXISTS tenant_disk_quotas (
  tenant TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL
);
)sql",
      // 15 -> 16: one form of a GPU placement. A row from before version 7
      // has only `gpus`, whole devices by index ("2,3"): they become the
      // placement of one replica "job" that holds them all (which replica
      // had which was never stored), and the column goes. A value that is
      // not such a list (never written by dlpd) is dropped with it.
      R"sql(
UPDATE jobs SET placement = json_object('sharing', '', 'replicas', json_array(json_object(
    'replica', 'job',
    'gpus', json((SELECT json_group_array(json_object(
                   'device', CAST(CAST(value AS INTEGER) AS TEXT), 'millis', 1000))
                 FROM json_each('["' || replace(gpus, ',', '","') || '"]')
                 WHERE value != '')))))
  WHERE placement = '' AND gpus != '' AND gpus NOT GLOB '*[^0-9,]*' AND gpus GLOB '*[0-9]*';
ALTER TABLE jobs DROP COLUMN gpus;
)sql",
  };
  return kMigrations;
}

}  // namespace

int LatestSchemaVersion() { return static_cast<int>(Migrations().size()); }

absl::StatusOr<int> MigrateSchema(Database& db, std::optional<int> up_to) {
  DLP_ASSIGN_OR_RETURN(int64_t version, db.QueryInt("PRAGMA user_version"));
  const auto& migrations = Migrations();
  if (version > static_cast<int64_t>(migrations.size())) {
    return absl::FailedPreconditionError(
        absl::StrCat("the store has schema version ", version, " but this dlpd knows only up to ",
                     migrations.size(), "; use a newer dlpd"));
  }
  const size_t target =
      std::min(migrations.size(), static_cast<size_t>(std::max(0, up_to.value_or(INT_MAX))));
  for (auto v = static_cast<size_t>(version); v < target; ++v) {
    Transaction tx(db);
    DLP_RETURN_IF_ERROR(tx.begin_status());
    DLP_RETURN_IF_ERROR(db.Exec(migrations[v]));
    DLP_RETURN_IF_ERROR(db.Exec(absl::StrCat("PRAGMA user_version = ", v + 1)));
    DLP_RETURN_IF_ERROR(tx.Commit());
  }
  return static_cast<int>(std::max<size_t>(target, static_cast<size_t>(version)));
}

absl::StatusOr<Database> OpenStore(const std::string& path, int* version) {
  DLP_ASSIGN_OR_RETURN(Database db, Database::Open(path));
  DLP_RETURN_IF_ERROR(db.Exec("PRAGMA journal_mode=WAL"));
  DLP_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous=FULL"));
  DLP_RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys=ON"));
  DLP_ASSIGN_OR_RETURN(int migrated, MigrateSchema(db));
  if (version) *version = migrated;
  return db;
}

}  // namespace dlp::server
