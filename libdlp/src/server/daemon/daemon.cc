#include "server/daemon/daemon.h"

#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <thread>

#include <httplib.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "dlp/version.h"
#include "server/api/auth.h"
#include "server/api/routes.h"
#include "server/controller/controller.h"
#include "server/daemon/state_dir.h"
#include "server/log.h"
#include "server/thread_guard.h"

namespace dlp::server {
namespace {

constexpr int kServerThreads = 64;  // long polls and log streams each hold one

// httplib has no catch of its own: a request, long poll or log follow that
// throws is logged (and its connection dropped), never the end of dlpd.
class GuardedThreadPool : public httplib::ThreadPool {
 public:
  using httplib::ThreadPool::ThreadPool;
  void enqueue(std::function<void()> fn) override {
    httplib::ThreadPool::enqueue([fn = std::move(fn)] { RunGuarded("HTTP request", fn); });
  }
};

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

absl::StatusOr<std::unique_ptr<httplib::Server>> MakeServer(const DaemonOptions& options) {
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  if (options.tls_cert.empty()) return std::make_unique<httplib::Server>();
  auto server = std::make_unique<httplib::SSLServer>(options.tls_cert.c_str(),
                                                     options.tls_key.c_str());
  if (!server->is_valid()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load the TLS certificate ", options.tls_cert, " or key ", options.tls_key));
  }
  return std::unique_ptr<httplib::Server>(std::move(server));
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

  DLP_ASSIGN_OR_RETURN(std::unique_ptr<httplib::Server> server, MakeServer(options));
  server->new_task_queue = [] { return new GuardedThreadPool(kServerThreads); };
  // Headers and body go out in separate writes: without TCP_NODELAY the body
  // waits for the client's delayed ACK (40 ms a request).
  server->set_tcp_nodelay(true);
  server->set_keep_alive_max_count(1000);
  std::atomic<bool> api_shutdown{false};
  ApiContext context{&controller, &auth, [&api_shutdown] { api_shutdown = true; }};
  InstallRoutes(*server, context);
  int bound = port == 0 ? server->bind_to_any_port(host.c_str())
                        : (server->bind_to_port(host.c_str(), port) ? port : -1);
  if (bound < 0) {
    controller.Shutdown();
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen));
  }
  const std::string address =
      absl::StrCat(host.find(':') != std::string::npos ? "[" + host + "]" : host, ":", bound);
  std::thread listener = GuardedThread("HTTP listener", [&server] { server->listen_after_bind(); });
  absl::Status published = state.Publish(address, token);
  if (!published.ok()) {
    controller.Shutdown();
    server->stop();
    listener.join();
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
  controller.Shutdown();
  server->stop();
  listener.join();
  state.Unpublish();
  Log("stopped");
  return absl::OkStatus();
}

}  // namespace dlp::server
