// The launcher's loop. Each round starts every rank, then polls their pipes
// and the signal pipe until either all ranks succeeded (or those of the
// success policy's roles, and the rest are stopped), one failed, the start
// timeout passed, or dlp-run was told to stop. A failure stops the rest of the
// group (SIGTERM to each process group, SIGKILL after the grace period); the
// next round, if the restart policy allows one, starts after the backoff with
// DLP_RESTART_COUNT and DLP_RDZV_ROUND raised by one.
#include "launch/launcher.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/cpu_binding.h"
#include "common/socket.h"
#include "contract/env_names.h"
#include "contract/status.h"
#include "dlp/status.h"
#include "launch/rank_environment.h"
#include "launch/rank_process.h"
#include "launch/signals.h"
#include "launch/success_policy.h"
#include "rendezvous/store.h"

namespace dlp::launch {
namespace {

// `n` distinct free TCP ports on this machine. Each is held until all are
// drawn, so that none is drawn twice, then released: the ranks' own servers
// bind them (torch's store on MASTER_PORT, TensorFlow's on TF_CONFIG's ports).
std::vector<int> FreePorts(size_t n) {
  std::vector<runtime::Fd> held;
  std::vector<int> ports;
  for (size_t i = 0; i < n; ++i) {
    auto fd = runtime::ListenTcp("0.0.0.0", 0, 1);
    auto port = fd.ok() ? runtime::BoundPort(fd->get()) : absl::StatusOr<int>(0);
    ports.push_back(port.ok() ? *port : 0);
    if (fd.ok()) held.push_back(std::move(*fd));
  }
  return ports;
}

class Launcher {
 public:
  Launcher(const LaunchOptions& options, std::function<void(const std::string&)> notify)
      : options_(options), notify_(std::move(notify)), status_writer_(options.status_file) {}

  absl::StatusOr<LaunchResult> Run();

 private:
  enum class Outcome { kSucceeded, kFailed, kCancelled };
  absl::Status Prepare();
  void StartRound(int round);
  Outcome Supervise(int round);
  void StopAll();
  // After a success: stops the ranks still running (successPolicy), if any.
  void StopRest();
  bool Backoff();  // false when cancelled during the wait
  void Pump(absl::Time deadline);
  void WriteStatus();
  void Notify(const std::string& line) {
    if (notify_) notify_(line);
  }

  const LaunchOptions& options_;
  std::function<void(const std::string&)> notify_;
  contract::StatusFileWriter status_writer_;
  contract::GroupStatus group_status_;
  RankLayout layout_;
  std::vector<std::unique_ptr<RankProcess>> ranks_;
  std::vector<bool> stopped_by_policy_;  // per rank: stopped because the round succeeded
  std::unique_ptr<runtime::TcpStoreServer> store_;
  runtime::JobSecret secret_;  // drawn once; the same for every round
  std::string store_host_, master_addr_, cwd_;
  bool any_remote_ = false;
  int signal_fd_ = -1;
  int cancel_signal_ = 0;
  std::string failure_;
  int failed_index_ = -1;  // the rank whose end failed the round; -1: the start timeout
};

absl::Status Launcher::Prepare() {
  DLP_ASSIGN_OR_RETURN(
      layout_, LayOutRanks(options_.group, options_.hosts, options_.gpus, options_.gpus_given));
  if (!options_.log_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options_.log_dir, ec);
    if (ec) {
      return absl::UnavailableError(
          absl::StrCat("cannot create log folder ", options_.log_dir, ": ", ec.message()));
    }
  }
  for (const RankPlan& plan : layout_.ranks) {
    std::unique_ptr<LineWriter> writer;
    if (options_.log_dir.empty()) {
      writer = PrefixWriter(absl::StrCat(plan.rank));
    } else {
      DLP_ASSIGN_OR_RETURN(writer,
                           OpenLogFile(options_.log_dir, plan.name, options_.group.log_max_bytes));
    }
    any_remote_ = any_remote_ || !plan.local;
    ranks_.push_back(std::make_unique<RankProcess>(plan, std::move(writer)));
    stopped_by_policy_.push_back(false);
  }
  char cwd[4096] = {0};
  cwd_ = getcwd(cwd, sizeof cwd - 1) != nullptr ? cwd : "";
  // The store listens where every rank can reach it: loopback when all ranks
  // are here, otherwise on every interface, named by the address that routes
  // to the first remote host.
  store_host_ = "127.0.0.1";
  if (any_remote_) {
    for (const RankPlan& plan : layout_.ranks) {
      if (plan.local) continue;
      auto addr = runtime::LocalAddressFor(plan.host, 22);
      if (addr.ok()) store_host_ = *addr;
      break;
    }
  }
  const RankPlan& first = layout_.ranks.front();
  master_addr_ = first.local ? store_host_ : first.host;
  DLP_ASSIGN_OR_RETURN(secret_, runtime::JobSecret::Generate());
  DLP_ASSIGN_OR_RETURN(store_, runtime::TcpStoreServer::Start(
                                   any_remote_ ? "0.0.0.0" : "127.0.0.1", 0, secret_));
  group_status_.pid = getpid();
  return absl::OkStatus();
}

void Launcher::StartRound(int round) {
  ClusterInfo cluster;
  cluster.framework = options_.group.framework;
  cluster.master_addr = master_addr_;
  const bool tensorflow = cluster.framework == contract::Framework::kTensorFlow;
  std::vector<int> ports = FreePorts(1 + (tensorflow ? ranks_.size() : 0));
  cluster.master_port = ports[0];
  cluster.tf_ports.assign(ports.begin() + 1, ports.end());
  cluster.store_addr = absl::StrCat(store_host_, ":", store_->port());
  cluster.secret_hex = secret_.Hex();
  cluster.round = round;
  cluster.max_restarts = contract::TorchMaxRestarts(options_.group);
  const std::map<std::string, std::string> inherited = base::CurrentEnvironment();
  if (auto job = inherited.find(contract::env::kJobId); job != inherited.end()) {
    cluster.run_id = job->second;
  }
  const std::vector<int> allowed_cpus = runtime::AllowedCpus();
  for (size_t i = 0; i < ranks_.size(); ++i) {
    RankProcess* rank = ranks_[i].get();
    std::map<std::string, std::string> env = RankEnvironment(layout_, rank->plan(), cluster);
    // Traces go next to the logs (docs/runtime-contract.md, "Traces and metrics").
    const std::string& trace_dir =
        options_.trace_dir.empty() ? options_.log_dir : options_.trace_dir;
    if (!trace_dir.empty() && !env.count(contract::env::kTraceDir)) {
      env[contract::env::kTraceDir] = std::filesystem::absolute(trace_dir).string();
    }
    if (options_.bind_to_core) env[contract::env::kBindTo] = "core";
    base::SpawnOptions request;
    if (rank->plan().local) {
      if (options_.bind_to_core) {
        request.cpus = runtime::CpusForLocalRank(allowed_cpus, rank->plan().local_rank,
                                                 rank->plan().local_world_size);
      }
      request.argv = rank->plan().command;
      request.env = std::move(env);
      request.workdir = options_.group.workdir;
    } else {
      for (const char* name :
           {contract::env::kJobId, contract::env::kJobName, contract::env::kOutputDir}) {
        if (inherited.count(name)) env[name] = inherited.at(name);
      }
      const std::string workdir = options_.group.workdir.empty() ? cwd_ : options_.group.workdir;
      request.argv = SshArgv(options_.ssh, rank->plan().host, env, workdir, rank->plan().command);
      // Its EOF tells the remote watchdog to stop the rank.
      request.stdin_stream = base::Stream::kPipe;
    }
    absl::Status started = rank->Start(request);
    // An ssh that already exited cannot take the secret; its exit (255: the
    // host stopped answering) says what happened, not this write.
    if (started.ok() && !rank->plan().local) (void)rank->WriteStdinLine(cluster.secret_hex);
    if (!started.ok() && failure_.empty()) {
      failure_ = rank->Describe();
      failed_index_ = static_cast<int>(i);
    }
  }
  WriteStatus();
}

void Launcher::Pump(absl::Time deadline) {
  std::vector<pollfd> fds = {{signal_fd_, POLLIN, 0}};
  for (auto& rank : ranks_) rank->CollectPollFds(&fds);
  absl::Duration wait = std::max(deadline - absl::Now(), absl::ZeroDuration());
  int timeout_ms = deadline == absl::InfiniteFuture()
                       ? 1000
                       : static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(wait) + 1, 1000));
  int n = poll(fds.data(), fds.size(), timeout_ms);
  if (n < 0 && errno != EINTR) return;
  bool child_exited = false;
  if (n > 0 && fds[0].revents != 0) {
    int sig = DrainSignalPipe(signal_fd_, &child_exited);
    if (sig != 0 && cancel_signal_ == 0) cancel_signal_ = sig;
  }
  for (size_t i = 1; n > 0 && i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    for (auto& rank : ranks_) rank->OnPollEvent(fds[i]);
  }
  // Reap on every pass: a SIGCHLD byte may have been coalesced with others.
  for (size_t i = 0; i < ranks_.size(); ++i) {
    if (ranks_[i]->Reap() && ranks_[i]->failed() && failure_.empty()) {
      failure_ = ranks_[i]->Describe();
      failed_index_ = static_cast<int>(i);
    }
  }
}

Launcher::Outcome Launcher::Supervise(int round) {
  (void)round;
  const absl::Time start_deadline = absl::Now() + options_.start_timeout;
  while (true) {
    if (cancel_signal_ != 0) return Outcome::kCancelled;
    if (!failure_.empty()) return Outcome::kFailed;
    bool all_ready = true;
    std::vector<const contract::RankStatus*> ends;  // no copies: this runs at every output line
    for (auto& rank : ranks_) {
      all_ready = all_ready && (rank->ready() || rank->exited());
      ends.push_back(&rank->status());
    }
    if (RoundSucceeded(options_.group, ends)) return Outcome::kSucceeded;
    absl::Time deadline = absl::InfiniteFuture();
    if (!all_ready) {
      if (absl::Now() >= start_deadline) {
        for (auto& rank : ranks_) {
          if (rank->ready() || rank->exited()) continue;
          failed_index_ = -1;
          failure_ = absl::StrCat("rendezvous did not complete within ",
                                  absl::FormatDuration(options_.start_timeout), ": rank ",
                                  rank->plan().rank, " (", rank->plan().name, ") on host ",
                                  rank->plan().host, " has not started");
          break;
        }
        return Outcome::kFailed;
      }
      deadline = start_deadline;
    }
    // Only while the round goes on: its end writes the outcome at once, so a
    // short job's status file is written twice (started, ended), not three
    // times, and each rewrite frees an inode.
    WriteStatus();
    Pump(deadline);
  }
}

void Launcher::StopAll() {
  // A planned stop (SIGUSR1, an elastic job's resize) passes SIGUSR1 on:
  // each rank checkpoints and exits.
  const int stop_signal = cancel_signal_ == SIGUSR1 ? SIGUSR1 : SIGTERM;
  for (auto& rank : ranks_) {
    rank->CloseStdin();
    rank->SignalGroup(stop_signal);
  }
  WriteStatus();  // the rank that ended the round, while the others stop
  const absl::Time grace_end = absl::Now() + options_.grace;
  auto all_exited = [this] {
    return std::all_of(ranks_.begin(), ranks_.end(), [](auto& r) { return r->exited() || !r->running(); });
  };
  while (!all_exited() && absl::Now() < grace_end) Pump(grace_end);
  for (auto& rank : ranks_) rank->SignalGroup(SIGKILL);
  // SIGKILL cannot be refused; the bound only guards against a stuck kernel.
  const absl::Time kill_end = absl::Now() + absl::Seconds(10);
  while (!all_exited() && absl::Now() < kill_end) Pump(kill_end);
  for (auto& rank : ranks_) rank->DrainAndClose();
}

void Launcher::StopRest() {
  for (size_t i = 0; i < ranks_.size(); ++i) stopped_by_policy_[i] = ranks_[i]->running();
  const auto& stopped = stopped_by_policy_;
  if (std::none_of(stopped.begin(), stopped.end(), [](bool b) { return b; })) {
    for (auto& rank : ranks_) rank->DrainAndClose();
    return;
  }
  group_status_.reason = SuccessPolicyReason(options_.group);
  Notify(group_status_.reason);
  StopAll();
}

bool Launcher::Backoff() {
  const absl::Time end = absl::Now() + options_.group.backoff;
  while (absl::Now() < end && cancel_signal_ == 0) Pump(end);
  return cancel_signal_ == 0;
}

void Launcher::WriteStatus() {
  group_status_.replicas.clear();
  bool all_running = true;
  for (size_t i = 0; i < ranks_.size(); ++i) {
    group_status_.replicas.push_back(ranks_[i]->status());
    all_running = all_running && ranks_[i]->status().state != "Starting";
    if (stopped_by_policy_[i]) {
      MarkStoppedBySuccessPolicy(options_.group, &group_status_.replicas.back());
    }
  }
  if (group_status_.state == "Starting" && all_running) group_status_.state = "Running";
  absl::Status written = status_writer_.Write(group_status_);
  if (!written.ok()) Notify(std::string(written.message()));
}

absl::StatusOr<LaunchResult> Launcher::Run() {
  signal_fd_ = InstallSignalPipe();
  if (signal_fd_ < 0) return absl::InternalError("cannot create the signal pipe");
  DLP_RETURN_IF_ERROR(Prepare());
  const contract::Group& group = options_.group;
  // A job started again after a preemption counts on from its earlier restarts.
  for (int round = group.restart_count;; ++round) {
    group_status_.restarts = round;
    group_status_.state = "Starting";
    failure_.clear();
    StartRound(round);
    const Outcome outcome = Supervise(round);
    if (outcome == Outcome::kSucceeded) {
      group_status_.reason = "";
      StopRest();
      group_status_.state = "Succeeded";
      WriteStatus();
      return LaunchResult{0, ""};
    }
    if (outcome == Outcome::kFailed) Notify(absl::StrCat(failure_, "; stopping the other ranks"));
    StopAll();
    if (outcome == Outcome::kCancelled || cancel_signal_ != 0) {
      group_status_.state = "Failed";
      group_status_.reason = absl::StrCat("cancelled by signal ", cancel_signal_, " (",
                                          strsignal(cancel_signal_), ")");
      WriteStatus();
      return LaunchResult{128 + cancel_signal_, group_status_.reason};
    }
    // The rank whose end decided the round decides whether it may restart.
    int exit_code = 0, sig = 0;
    if (failed_index_ >= 0) {
      exit_code = ranks_[failed_index_]->status().exit_code.value_or(0);
      sig = ranks_[failed_index_]->status().signal.value_or(0);
    }
    const bool timed_out = failed_index_ < 0;
    const int restarts_here = round - group.restart_count;
    if (restarts_here < group.max_restarts &&
        (timed_out ? group.restart_policy != contract::RestartPolicy::kNever
                   : contract::ShouldRestart(group.restart_policy, exit_code, sig))) {
      group_status_.reason = failure_;
      Notify(absl::StrCat("restarting the group (restart ", restarts_here + 1, " of ",
                          group.max_restarts, ")"));
      WriteStatus();
      if (!Backoff()) {
        group_status_.state = "Failed";
        group_status_.reason = absl::StrCat("cancelled by signal ", cancel_signal_);
        WriteStatus();
        return LaunchResult{128 + cancel_signal_, group_status_.reason};
      }
      continue;
    }
    group_status_.state = "Failed";
    group_status_.reason = failure_;
    WriteStatus();
    return LaunchResult{1, failure_};
  }
}

}  // namespace

absl::StatusOr<LaunchResult> RunGroup(const LaunchOptions& options,
                                      std::function<void(const std::string&)> notify) {
  Launcher launcher(options, std::move(notify));
  return launcher.Run();
}

}  // namespace dlp::launch
