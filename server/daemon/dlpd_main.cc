// dlpd: the dlp control-plane daemon, run in the foreground (see dlpd(8)).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "dlp/config.h"
#include "dlp/spec.h"
#include "dlp/version.h"
#include "server/daemon/daemon.h"
#include "server/scheduler/fair_share_history.h"

int main(int argc, char** argv) {
  CLI::App app{"dlpd: the dlp job daemon (local or shared control plane)", "dlpd"};
  dlp::server::DaemonOptions options;
  std::string cpus, memory;
  double grace_seconds = 10;
  int gpus = -1;
  app.add_option("--state-dir", options.state_dir,
                 "state folder (default $XDG_STATE_HOME/dlp, i.e. ~/.local/state/dlp)");
  app.add_option("--listen", options.listen, "HOST:PORT to listen on; port 0 picks a free one")
      ->capture_default_str();
  app.add_option("--tokens", options.tokens_file,
                 "file of \"TENANT TOKEN\" lines; tenants' jobs run as their Unix accounts, "
                 "so dlpd must run as root")
      ->check(CLI::ExistingFile);
  app.add_option("--config", options.config_file,
                 "YAML settings applied at every start: queues (see dlpd(8), CONFIGURATION)")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-cert", options.tls_cert, "PEM certificate: serve HTTPS")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-key", options.tls_key, "PEM private key for --tls-cert")
      ->check(CLI::ExistingFile);
  app.add_option("--log-file", options.log_file, "dlpd's own log (default STATE/dlpd.log)");
  app.add_option("--cpus", cpus, "CPUs to schedule instead of the detected count (\"4\", \"500m\")");
  app.add_option("--memory", memory, "memory to schedule instead of MemTotal (\"8Gi\")");
  app.add_option("--gpus", gpus, "GPUs to schedule instead of the NVML count");
  app.add_option("--gpu-inventory", options.gpu_inventory,
                 "YAML or JSON file of the GPUs to schedule (devices with index, uuid, name, "
                 "memory and MIG instances) instead of NVML's")
      ->check(CLI::ExistingFile);
  app.add_option("--grace-period", grace_seconds,
                 "seconds between SIGTERM and SIGKILL when stopping a job")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  std::string half_life = dlp::server::kDefaultFairShareHalfLife == absl::ZeroDuration()
                              ? "0"
                              : absl::FormatDuration(dlp::server::kDefaultFairShareHalfLife);
  app.add_option("--fair-share-half-life", half_life,
                 "how fast each queue's past use is forgotten by fair sharing (\"30m\", "
                 "\"1h\", \"2d\"); 0: only what runs now counts")
      ->capture_default_str();
  std::string tenant_memory = dlp::FormatMemoryBytes(dlp::server::kDefaultTenantReplicaMemory);
  app.add_option("--tenant-replica-memory", tenant_memory,
                 "memory given to a tenant's replica that asks for none (\"4Gi\"), so that "
                 "none runs without a memory limit; 0: none")
      ->capture_default_str();
  std::string disk_quota = dlp::FormatMemoryBytes(dlp::server::kDefaultTenantDiskQuota);
  app.add_option("--tenant-disk-quota", disk_quota,
                 "disk space each tenant's jobs and models may hold (\"100Gi\"); at it, the "
                 "tenant's submissions are refused and its running jobs stopped; 0: none")
      ->capture_default_str();
  double retain_days = 0;
  app.add_option("--retain-days", retain_days,
                 "remove the logs, traces and output of jobs that ended more than this many "
                 "days ago (their records stay); 0: keep them")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  std::string retain_bytes = "0";
  app.add_option("--retain-bytes", retain_bytes,
                 "remove the files of the oldest ended jobs while all ended jobs' files hold "
                 "more than this (\"50Gi\"); 0: no budget")
      ->capture_default_str();
  double disk_check_seconds = absl::ToDoubleSeconds(dlp::server::kDefaultDiskCheckInterval);
  app.add_option("--disk-check-interval", disk_check_seconds,
                 "seconds between two disk checks: running tenants' quotas, then retention")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  double resize_seconds = absl::ToDoubleSeconds(dlp::server::kDefaultResizeInterval);
  app.add_option("--resize-interval", resize_seconds,
                 "seconds an elastic job runs at a size before it may grow or give workers back")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  double exempt_seconds = 0;
  app.add_option("--preempt-exempt-time", exempt_seconds,
                 "seconds a started job is safe from preemption (Slurm's PreemptExemptTime); "
                 "0: none")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  bool no_ui = false;
  app.add_flag("--no-ui", no_ui, "do not serve the web UI (only the API under /v1/)");
  app.add_option("--ui-dir", options.ui_dir,
                 "serve the web UI's files from this folder (a front-end build, web/dist) "
                 "instead of the built-in ones; read at start")
      ->check(CLI::ExistingDirectory);
  app.set_version_flag("--version", std::string("dlpd ") + dlp::Version());
  CLI11_PARSE(app, argc, argv);

  if (options.state_dir.empty()) options.state_dir = dlp::DefaultStateDir();
  if (!cpus.empty()) {
    auto millis = dlp::ParseCpuMillis(cpus);
    if (!millis.ok()) {
      std::fprintf(stderr, "dlpd: --cpus: %s\n", std::string(millis.status().message()).c_str());
      return 2;
    }
    options.cpu_millis = *millis;
  }
  // A byte quantity ("4Gi") given to `flag`, or a message and false.
  auto parse_bytes = [](const char* flag, const std::string& text, int64_t& out) {
    auto bytes = dlp::ParseMemoryBytes(text);
    if (!bytes.ok()) {
      std::fprintf(stderr, "dlpd: %s: %s\n", flag, std::string(bytes.status().message()).c_str());
      return false;
    }
    out = *bytes;
    return true;
  };
  if (!memory.empty()) {
    int64_t bytes = 0;
    if (!parse_bytes("--memory", memory, bytes)) return 2;
    options.memory_bytes = bytes;
  }
  if (gpus >= 0) options.gpus = gpus;
  options.disk_check_interval = absl::Seconds(disk_check_seconds);
  options.retention.max_age = absl::Seconds(retain_days * 86400);
  if (!parse_bytes("--tenant-replica-memory", tenant_memory, options.tenant_replica_memory) ||
      !parse_bytes("--tenant-disk-quota", disk_quota, options.tenant_disk_quota) ||
      !parse_bytes("--retain-bytes", retain_bytes, options.retention.max_bytes)) {
    return 2;
  }
  absl::StatusOr<absl::Duration> parsed_half_life = dlp::server::ParseHalfLife(half_life);
  if (!parsed_half_life.ok()) {
    std::fprintf(stderr, "dlpd: --fair-share-half-life: %s\n",
                 std::string(parsed_half_life.status().message()).c_str());
    return 2;
  }
  options.fair_share_half_life = *parsed_half_life;
  options.grace_period = absl::Seconds(grace_seconds);
  options.resize_interval = absl::Seconds(resize_seconds);
  options.preempt_exempt_time = absl::Seconds(exempt_seconds);
  options.ui = !no_ui;

  absl::Status status = dlp::server::RunDaemon(options);
  if (!status.ok()) {
    std::fprintf(stderr, "dlpd: %s\n", std::string(status.message()).c_str());
    return absl::IsInvalidArgument(status) ? 2 : 1;
  }
  return 0;
}
