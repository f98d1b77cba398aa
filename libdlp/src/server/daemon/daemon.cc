#include "server/daemon/daemon.h"

#include <httplib.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "dlp/version.h"
#include "server/api/auth.h"
#include "server/api/routes.h"
#include "server/controller/controller.h"
#include "server/daemon/state_dir.h"
#include "server/http/gated_server.h"
#include "server/log.h"

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

absl::StatusOr<std::unique_ptr<GatedServer>> MakeServer(const DaemonOptions& options,
                                                        const Authenticator& auth) {
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
  server.gate.admit = [&auth](const HeadFields& head) {
    if (auth.Authenticate(head.authorization)) return absl::OkStatus();
    return absl::UnauthenticatedError(
        "missing or wrong bearer token (see dlpd.token in the state folder)");
  };
  server.gate.error_body = ErrorBody;
  return std::make_unique<GatedServer>(std::move(server));
}

}  // namespace

absl::Status RunDaemon(const DaemonOptions& options) {
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
  DLP_ASSIGN_OR_RETURN(StateDir state, StateDir::Open(options.state_dir));
  state.Unpublish();  // what a killed predecessor left points nowhere
  DLP_RETURN_IF_ERROR(
      SetLogFile(options.log_file.empty() ? state.File("dlpd.log") : options.log_file));
  chmod((options.log_file.empty() ? state.File("dlpd.log") : options.log_file).c_str(), 0600);
  Log(absl::StrCat("dlpd ", Version(), " starting (pid ", getpid(), ", state folder ",
                   state.path(), ")"));

  std::vector<TenantToken> tenants;
  if (!options.tokens_file.empty()) {
    DLP_ASSIGN_OR_RETURN(tenants, LoadTenantTokens(options.tokens_file));
  }
  DLP_ASSIGN_OR_RETURN(std::string token, state.LoadOrCreateToken());
  Authenticator auth(token, std::move(tenants));

  DLP_ASSIGN_OR_RETURN(JobStore store, JobStore::Open(state.File("dlpd.db")));
  for (const char* suffix : {"", "-wal", "-shm"}) {
    chmod(state.File(absl::StrCat("dlpd.db", suffix)).c_str(), 0600);
  }
  ControllerOptions controller_options;
  controller_options.capacity = DetectCapacity();
  if (options.cpu_millis) controller_options.capacity.cpu_millis = *options.cpu_millis;
  if (options.memory_bytes) controller_options.capacity.memory_bytes = *options.memory_bytes;
  if (options.gpus) controller_options.capacity.gpus = *options.gpus;
  Log(absl::StrCat("capacity: ", DescribeCpus(controller_options.capacity.cpu_millis), ", ",
                   DescribeMemory(controller_options.capacity.memory_bytes), " of memory, ",
                   controller_options.capacity.gpus, " GPUs"));
  Executor executor({state.File("jobs"), options.grace_period, options.dlp_run});
  Controller controller(std::move(store), CreateDefaultPolicy(), std::move(executor),
                        controller_options);
  DLP_RETURN_IF_ERROR(controller.Start());

  DLP_ASSIGN_OR_RETURN(std::unique_ptr<GatedServer> server, MakeServer(options, auth));
  std::atomic<bool> api_shutdown{false};
  LongRequests long_requests(kLongRequestsPerTenant, kLongRequestsTotal);
  ApiContext context{&controller, &auth, &long_requests, [&api_shutdown] { api_shutdown = true; }};
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
  std::thread listener([&server] { server->listen_after_bind(); });
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
  while (!api_shutdown) {
    siginfo_t info;
    if (sigtimedwait(&stop_signals, &info, &poll) > 0) {
      Log(absl::StrCat("received signal ", info.si_signo, "; stopping (jobs keep running)"));
      break;
    }
  }
  if (api_shutdown) Log("shutdown requested over the API; stopping (jobs keep running)");
  controller.Shutdown();
  server->stop();
  listener.join();
  server->Shutdown();
  state.Unpublish();
  Log("stopped");
  return absl::OkStatus();
}

}  // namespace dlp::server
