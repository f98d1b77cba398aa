#include "server/daemon/daemon.h"

#include <httplib.h>
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "dlp/version.h"
#include "server/api/routes.h"
#include "server/auth/auth.h"
#include "server/controller/controller.h"
#include "server/controller/sweep_controller.h"
#include "server/daemon/daemon_config.h"
#include "server/daemon/disk_checks.h"
#include "server/daemon/machine_gpus.h"
#include "server/daemon/shared_mode.h"
#include "server/daemon/state_dir.h"
#include "server/executor/cgroup.h"
#include "server/http/gated_server.h"
#include "server/models/blob_store.h"
#include "server/scheduler/gpu_inventory.h"
#include "server/store/model_store.h"
#include "server/store/sweep_store.h"
#include "server/support/log.h"
#include "server/support/periodic.h"
#include "server/support/thread_guard.h"
#include "server/ui/ui_assets.h"
#include "server/ui/ui_cookies.h"
#include "server/ui/ui_sessions.h"

namespace dlp::server {
namespace {

// Waits and log follows each hold a worker thread; these bound them (api/long_requests.h),
// below the workers' bound so that short requests always find a thread.
constexpr int kLongRequestsPerTenant = 32;
constexpr int kLongRequestsTotal = 1024;
constexpr size_t kMaxWorkers = kLongRequestsTotal + 64;
constexpr int kListenBacklog = 1024;

absl::Status SplitHostPort(const std::string& listen, std::string& host, int& port) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || !absl::SimpleAtoi(listen.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen: expected HOST:PORT, got \"", listen, "\""));
  }
  host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "127.0.0.1";
  return absl::OkStatus();
}

// Names dlpd's job cgroups after its state folder: dlpds sharing a cgroup
// keep apart, and a restarted dlpd finds its jobs' cgroups again.
std::string CgroupTag(const std::string& state_dir) {
  std::error_code ec;
  const std::string path = std::filesystem::weakly_canonical(state_dir, ec).string();
  uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (unsigned char c : ec ? state_dir : path) hash = (hash ^ c) * 1099511628211ull;
  return absl::StrCat(absl::Hex(hash >> 32, absl::kZeroPad8));
}

absl::StatusOr<std::unique_ptr<GatedServer>> MakeServer(const DaemonOptions& options,
                                                        const Authenticator& auth,
                                                        UiSessions* ui_sessions) {
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  GatedServerOptions server;
  if (!options.tls_cert.empty()) {
    DLP_ASSIGN_OR_RETURN(server.gate.tls, TlsContext::Load(options.tls_cert, options.tls_key));
  }
  // Each held connection is a descriptor; keep some for the store, logs and jobs.
  const size_t descriptors = RaiseDescriptorLimit();
  server.gate.max_connections =
      std::min<size_t>(server.gate.max_connections, descriptors > 512 ? descriptors - 256 : 256);
  server.max_workers = kMaxWorkers;
  // Unauthenticated requests are answered by the gate, without a worker thread.
  server.gate.admit = [&auth, ui_sessions](const HeadFields& head) {
    if (auth.Authenticate(head.authorization)) return absl::OkStatus();
    if (ui_sessions != nullptr) {
      // The UI's pages and sign-in are open; the API takes a session's cookie.
      if (!IsApiPath(absl::string_view(head.target).substr(0, head.target.find('?')))) {
        return absl::OkStatus();
      }
      if (SessionFromCookies(*ui_sessions, auth, head.cookie)) return absl::OkStatus();
    }
    return absl::UnauthenticatedError(
        "missing or wrong bearer token (see dlpd.token in the state folder)");
  };
  server.gate.error_body = ErrorBody;
  return std::make_unique<GatedServer>(std::move(server));
}

// `--tokens FILE` is read at every start and what the store lacks is added
// (dlpd(8)); a token revoked with `dlp admin token revoke` stays revoked.
absl::Status ImportTokensFile(const std::string& path, TenantStore& tenants) {
  if (path.empty()) return absl::OkStatus();
  DLP_ASSIGN_OR_RETURN(std::vector<TenantToken> lines, LoadTenantTokens(path));
  std::vector<TokenHash> hashes;
  for (const TenantToken& line : lines) hashes.push_back({line.tenant, HashToken(line.token)});
  DLP_ASSIGN_OR_RETURN(int added, tenants.ImportTokens(hashes));
  Log(absl::StrCat("tokens file ", path, ": ", lines.size(), " tokens, ", added,
                   " new ones imported"));
  return absl::OkStatus();
}

// `--config FILE` is applied at every start: the file wins for the queues it
// names; queues created with `dlp admin queue` and not in it stay (dlpd(8)).
absl::Status ApplyConfig(const DaemonConfig& config, const std::string& path, QueueStore& queues) {
  if (path.empty()) return absl::OkStatus();
  DLP_ASSIGN_OR_RETURN(QueueApplyResult applied, queues.Apply(config.queues));
  Log(absl::StrCat("config ", path, ": ", config.queues.size(), " queues (", applied.created,
                   " created, ", applied.updated, " updated, ", applied.unchanged, " unchanged)"));
  return absl::OkStatus();
}

}  // namespace

absl::Status RunDaemon(const DaemonOptions& options) {
  // glibc gives each thread that allocates its own arena and keeps what was
  // freed there: the request threads, each building large listings now and
  // then, grew dlpd by 100 MiB over 1,000 jobs that way (32 MiB with one
  // arena). Two arenas are plenty for a daemon that mostly waits; the main
  // loop below trims them every 5 s.
  mallopt(M_ARENA_MAX, 2);
  // Signals are taken synchronously by the main thread; every thread started
  // from here on inherits the blocked mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::string host;
  int port = 0;
  DLP_RETURN_IF_ERROR(SplitHostPort(options.listen, host, port));
  // Read before anything changes, so a bad file stops dlpd with its errors.
  DaemonConfig config;
  if (!options.config_file.empty()) {
    DLP_ASSIGN_OR_RETURN(config, LoadDaemonConfig(options.config_file));
  }
  // Tenants' jobs run as their Unix accounts, which takes privilege (dlpd(8)):
  // without it dlpd serves its owner only and says why.
  const absl::Status shared_mode = CheckSharedMode(options.state_dir);
  if (!options.tokens_file.empty()) DLP_RETURN_IF_ERROR(shared_mode);
  const bool shared = shared_mode.ok();
  DLP_ASSIGN_OR_RETURN(StateDir state,
                       StateDir::Open(options.state_dir, shared ? kSharedStateDirMode : 0700));
  state.Unpublish();  // what a killed predecessor left points nowhere
  DLP_RETURN_IF_ERROR(
      SetLogFile(options.log_file.empty() ? state.File("dlpd.log") : options.log_file));
  chmod((options.log_file.empty() ? state.File("dlpd.log") : options.log_file).c_str(), 0600);
  Log(absl::StrCat("dlpd ", Version(), " starting (pid ", getpid(), ", state folder ",
                   state.path(), ")"));
  // Before any thread starts: in cgroup v2 dlpd moves itself into a leaf.
  absl::StatusOr<Cgroups> cgroups = Cgroups::Detect(CgroupTag(state.path()));
  Log(cgroups.ok() ? absl::StrCat("job limits enforced with ", cgroups->Describe())
                   : absl::StrCat("job limits are not enforced: ", cgroups.status().message()));
  // However dlpd stops, a start that fails included, it leaves no empty
  // cgroup folder behind (one with jobs in it stays for the next dlpd).
  absl::Cleanup remove_unused_cgroups = [&cgroups] {
    if (cgroups.ok()) cgroups->RemoveIfUnused();
  };

  if (shared) {
    // Tenants' jobs reach their own folders only: jobs/ is searchable, not listable.
    std::error_code ec;
    std::filesystem::create_directories(state.File("jobs"), ec);
    chmod(state.File("jobs").c_str(), kSharedStateDirMode);
    Log("shared mode: tenants' jobs run as their Unix accounts");
  } else {
    Log(absl::StrCat("single-user mode: tenants' tokens are refused: ", shared_mode.message()));
  }
  DLP_ASSIGN_OR_RETURN(std::string token, state.LoadOrCreateToken());
  DLP_ASSIGN_OR_RETURN(JobStore store, JobStore::Open(state.File("dlpd.db")));
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<TenantStore> tenants,
                       TenantStore::Open(state.File("dlpd.db")));
  for (const char* suffix : {"", "-wal", "-shm"}) {
    chmod(state.File(absl::StrCat("dlpd.db", suffix)).c_str(), 0600);
  }
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<QueueStore> queues, QueueStore::Open(state.File("dlpd.db")));
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<ModelStore> model_store,
                       ModelStore::Open(state.File("dlpd.db")));
  BlobStore blobs(state.File("blobs"));
  DLP_RETURN_IF_ERROR(ImportTokensFile(options.tokens_file, *tenants));
  DLP_RETURN_IF_ERROR(ApplyConfig(config, options.config_file, *queues));
  Authenticator auth(token, *tenants);

  ControllerOptions controller_options;
  // A tenant deleted since has no account: "" names none, so its jobs cannot start.
  controller_options.unix_user_for_tenant = [&tenants](const std::string& tenant) {
    return tenants->UnixUser(tenant).value_or("");
  };
  controller_options.queues = queues.get();
  controller_options.fair_share_half_life = options.fair_share_half_life;
  controller_options.resize_interval = options.resize_interval;
  controller_options.preempt_exempt_time = options.preempt_exempt_time;
  controller_options.tenant_replica_memory = options.tenant_replica_memory;
  DiskQuota disk_quota(options.tenant_disk_quota, state.File("jobs"));
  controller_options.check_disk_quota = [&disk_quota](const std::string& tenant) {
    return disk_quota.Check(tenant);
  };
  controller_options.capacity = DetectCapacity();
  DLP_ASSIGN_OR_RETURN(controller_options.devices,
                       LoadMachineGpus(options.gpu_inventory, options.gpus));
  if (options.cpu_millis) controller_options.capacity.cpu_millis = *options.cpu_millis;
  if (options.memory_bytes) controller_options.capacity.memory_bytes = *options.memory_bytes;
  if (options.gpus) controller_options.capacity.gpu_millis = int64_t{*options.gpus} * 1000;
  if (!controller_options.devices.empty()) {
    const ResourceVector gpus = GpuCapacityOf(controller_options.devices);
    controller_options.capacity.gpu_millis = gpus.gpu_millis;
    controller_options.capacity.gpu_flavours = gpus.gpu_flavours;
    Log(absl::StrCat("GPUs: ", DescribeDevices(controller_options.devices)));
  }
  Log(absl::StrCat("capacity: ", DescribeCpus(controller_options.capacity.cpu_millis), ", ",
                   DescribeMemory(controller_options.capacity.memory_bytes), " of memory, ",
                   controller_options.capacity.gpu_millis / 1000, " GPUs"));
  Executor executor({state.File("jobs"), options.grace_period, options.dlp_run,
                     cgroups.ok() ? std::optional<Cgroups>(*cgroups) : std::nullopt,
                     controller_options.capacity.gpu_millis > 0, controller_options.devices});
  Controller controller(std::move(store), CreateDefaultPolicy(), std::move(executor),
                        controller_options);
  DLP_RETURN_IF_ERROR(controller.Start());
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<SweepStore> sweep_store,
                       SweepStore::Open(state.File("dlpd.db")));
  SweepController sweeps(*sweep_store, controller);
  DLP_RETURN_IF_ERROR(sweeps.Start());

  std::unique_ptr<UiSessions> ui_sessions;
  UiAssets ui_assets = UiAssets::Embedded();
  if (options.ui) {
    ui_sessions = std::make_unique<UiSessions>();
    if (!options.ui_dir.empty()) {
      DLP_ASSIGN_OR_RETURN(ui_assets, UiAssets::FromDirectory(options.ui_dir));
    }
    Log(ui_assets.empty() ? std::string("web UI: not built into this dlpd (docs/ui.md)")
                          : absl::StrCat("web UI: ", ui_assets.size(), " files",
                                         options.ui_dir.empty() ? "" : " from " + options.ui_dir));
  }
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<GatedServer> server,
                       MakeServer(options, auth, ui_sessions.get()));
  std::atomic<bool> api_shutdown{false};
  LongRequests long_requests(kLongRequestsPerTenant, kLongRequestsTotal);
  ApiContext context{&controller,    &auth,
                     tenants.get(),  shared ? "" : std::string(shared_mode.message()),
                     &long_requests, [&api_shutdown] { api_shutdown = true; },
                     queues.get(),   &sweeps};
  if (ui_sessions) {
    context.ui_sessions = ui_sessions.get();
    context.ui_assets = &ui_assets;
    context.https = !options.tls_cert.empty();
  }
  ModelRegistry models(&controller, model_store.get(), &blobs, &disk_quota);
  context.models = &models;
  context.disk_quota = &disk_quota;
  MetricSummaries metric_summaries;
  context.metric_summaries = &metric_summaries;
  disk_quota.SetSources(TenantDiskSources(controller, *model_store, *tenants));
  const Retention retention(options.retention, state.File("jobs"));
  // Declared after the controller, so stopped before it goes: a round stops
  // jobs through it.
  Periodic disk_checks("disk checks", options.disk_check_interval,
                       [&] { CheckDisk(controller, disk_quota, retention); });
  InstallRoutes(*server, context);
  int bound = port == 0 ? server->bind_to_any_port(host.c_str())
                        : (server->bind_to_port(host.c_str(), port) ? port : -1);
  if (bound < 0) {
    controller.Shutdown();
    server->Shutdown();
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen));
  }
  const std::string address =
      absl::StrCat(host.find(':') != std::string::npos ? "[" + host + "]" : host, ":", bound);
  server->WidenBacklog(kListenBacklog);
  std::thread listener = GuardedThread("HTTP listener", [&server] { server->listen_after_bind(); });
  absl::Status published = state.Publish(address, token);
  if (!published.ok()) {
    controller.Shutdown();
    server->stop();
    listener.join();
    server->Shutdown();
    return published;
  }
  Log(absl::StrCat("listening on ", address, options.tls_cert.empty() ? "" : " (TLS)"));

  const timespec poll{0, 100 * 1000 * 1000};
  for (int round = 1; !api_shutdown; ++round) {
    siginfo_t info;
    if (sigtimedwait(&stop_signals, &info, &poll) > 0) {
      Log(absl::StrCat("received signal ", info.si_signo, "; stopping (jobs keep running)"));
      break;
    }
    // A listing of 10,000 jobs allocates some 200 MiB for a moment; malloc
    // keeps what was freed unless asked to return it.
    if (round % 50 == 0) malloc_trim(0);
  }
  if (api_shutdown) Log("shutdown requested over the API; stopping (jobs keep running)");
  sweeps.Shutdown();
  controller.Shutdown();
  server->stop();
  listener.join();
  server->Shutdown();
  state.Unpublish();
  Log("stopped");
  return absl::OkStatus();
}

}  // namespace dlp::server
