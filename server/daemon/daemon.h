// dlpd as a whole: state folder, store, controller and HTTP server, run in the
// foreground until SIGTERM, SIGINT or POST /v1/shutdown. Jobs keep running
// when it exits; the next dlpd on the same folder adopts them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/controller/disk_quota.h"
#include "server/controller/retention.h"
#include "server/daemon/disk_checks.h"
#include "server/executor/tenant_defaults.h"
#include "server/scheduler/elastic_role.h"
#include "server/scheduler/fair_share_history.h"

namespace dlp::server {

struct DaemonOptions {
  std::string state_dir;
  std::string listen = "127.0.0.1:0";  // HOST:PORT; port 0 picks a free one
  std::string tokens_file;             // "TENANT TOKEN" lines
  std::string config_file;             // YAML settings (daemon_config.h): queues
  std::string tls_cert, tls_key;       // both set: HTTPS
  std::string log_file;                // empty: STATE/dlpd.log
  // Overrides of the detected capacity (tests force queueing with these).
  std::optional<int64_t> cpu_millis, memory_bytes;
  std::optional<int> gpus;
  // A declared GPU inventory (gpu_inventory.h) instead of NVML's devices.
  std::string gpu_inventory;
  absl::Duration grace_period = absl::Seconds(10);
  // The half-life of the fair-share history (fair_share_history.h); zero: off.
  absl::Duration fair_share_half_life = kDefaultFairShareHalfLife;
  // How often an elastic job may grow (scheduler/elastic_role.h).
  absl::Duration resize_interval = kDefaultResizeInterval;
  // How long a started job is safe from preemption (scheduler/snapshot.h).
  absl::Duration preempt_exempt_time = absl::ZeroDuration();
  // The memory of a tenant's replica that asks for none; 0: none.
  int64_t tenant_replica_memory = kDefaultTenantReplicaMemory;
  // The disk space each tenant may hold (disk_quota.h); 0: none.
  int64_t tenant_disk_quota = kDefaultTenantDiskQuota;
  RetentionOptions retention;  // ended jobs' files (retention.h)
  absl::Duration disk_check_interval = kDefaultDiskCheckInterval;
  std::string dlp_run;  // empty: $DLP_RUN, next to dlpd, PATH
  bool ui = true;       // serve the web UI (docs/ui.md)
  std::string ui_dir;   // non-empty: the UI's files from here, not the built-in ones
};

// Runs until asked to stop. Returns OK on a clean stop; FailedPrecondition
// when another dlpd holds the state folder; other errors for a failed start.
absl::Status RunDaemon(const DaemonOptions& options);

}  // namespace dlp::server
