#include "launch/group_task.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "base/process/spawn.h"
#include "contract/env_names.h"
#include "contract/status.h"
#include "dlp/status.h"
#include "launch/kubernetes_pod.h"
#include "launch/rank_environment.h"
#include "launch/rank_process.h"
#include "launch/round_coordinator.h"
#include "launch/signals.h"
#include "launch/slurm.h"
#include "launch/store_watcher.h"
#include "launch/trace_relay.h"
#include "rendezvous/store.h"

namespace dlp::launch {
namespace {

namespace names = contract::env;

class GroupTaskRunner {
 public:
  GroupTaskRunner(const GroupTaskOptions& options,
                  const std::function<void(const std::string&)>& notify)
      : options_(options), notify_(notify), status_writer_(options.status_file) {}

  int Run();

 private:
  absl::Status Prepare();
  absl::StatusOr<int> FirstRound();
  void StartChild(int round);
  // Supervises the round until its decision; "" when cancelled by a signal.
  std::string Supervise(int round);
  void Post(int round, const std::string& event);
  void StopChild();
  bool Backoff();
  void WriteStatus();
  void Notify(const std::string& line);
  // After a final decision: rank 0 keeps its store up until every task has it.
  void Acknowledge(int round);
  bool coordinator() const { return task_.rank == 0; }
  // DLP_TRACE_DIR for the rank: --trace-dir, the log folder, or with
  // --relay-traces and neither a private temporary folder.
  void ChooseTraceDir();
  void PumpTraces() {
    if (trace_relay_) trace_relay_->Pump();
  }

  const GroupTaskOptions& options_;
  const std::function<void(const std::string&)>& notify_;
  contract::StatusFileWriter status_writer_;
  std::unique_ptr<RoundCoordinator> coordinator_;  // rank 0's
  SchedulerTask task_;
  RankLayout layout_;
  std::unique_ptr<RankProcess> rank_;
  runtime::JobSecret secret_;  // every task's alike (TaskSecret)
  std::unique_ptr<runtime::TcpStoreServer> server_;
  std::unique_ptr<runtime::RendezvousStore> store_;
  int signal_fd_ = -1;
  int cancel_signal_ = 0;
  std::string trace_dir_;
  std::unique_ptr<LineWriter> relay_writer_;
  std::unique_ptr<TraceRelay> trace_relay_;
};

void GroupTaskRunner::ChooseTraceDir() {
  trace_dir_ = options_.trace_dir.empty() ? options_.log_dir : options_.trace_dir;
  if (!options_.relay_traces) return;
  if (trace_dir_.empty()) {
    const char* tmp = getenv("TMPDIR");
    std::string pattern = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                       "/dlp-trace-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) {
      // Tracing is an aid: the rank runs without it rather than not at all.
      Notify(absl::StrCat("cannot create a trace folder ", pattern, ": ", strerror(errno),
                          "; tracing off"));
      return;
    }
    trace_dir_ = pattern;
  }
  relay_writer_ = PlainWriter();
  trace_relay_ = std::make_unique<TraceRelay>(trace_dir_, relay_writer_.get());
}

absl::Status GroupTaskRunner::Prepare() {
  DLP_ASSIGN_OR_RETURN(layout_, LayOutRanks(options_.group, {}, {}, /*gpus_given=*/false));
  if (options_.source == RankSource::kKubernetes) {
    DLP_ASSIGN_OR_RETURN(
        task_, ReadKubernetesTask(base::CurrentEnvironment(), layout_, options_.rdzv_port));
  } else {
    DLP_ASSIGN_OR_RETURN(task_, ReadSlurmTask(base::CurrentEnvironment(), options_.rdzv_port));
  }
  if (static_cast<int>(layout_.ranks.size()) != task_.world) {
    return absl::InvalidArgumentError(absl::StrCat("the group has ", layout_.ranks.size(),
                                                   " ranks but Slurm started ", task_.world,
                                                   " tasks (srun --ntasks)"));
  }
  PlaceTask(task_, &layout_);
  DLP_ASSIGN_OR_RETURN(secret_, TaskSecret(base::CurrentEnvironment()));
  ChooseTraceDir();
  std::unique_ptr<LineWriter> writer = PlainWriter();
  if (!options_.log_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options_.log_dir, ec);
    DLP_ASSIGN_OR_RETURN(writer, OpenLogFile(options_.log_dir, layout_.ranks[task_.rank].name,
                                             options_.group.log_max_bytes));
  }
  rank_ = std::make_unique<RankProcess>(layout_.ranks[task_.rank], std::move(writer));
  std::string host = "127.0.0.1";
  if (coordinator()) {
    DLP_ASSIGN_OR_RETURN(server_,
                         runtime::TcpStoreServer::Start("0.0.0.0", task_.store_port, secret_));
  } else {
    host = task_.nodes[0];
    if (options_.source == RankSource::kKubernetes) {
      DLP_RETURN_IF_ERROR(WaitForPodHost(host, options_.start_timeout));
    }
  }
  DLP_ASSIGN_OR_RETURN(store_,
                       runtime::ConnectTcpStore(host, task_.store_port, secret_,
                                                options_.start_timeout));
  if (coordinator()) {
    coordinator_ = std::make_unique<RoundCoordinator>(
        options_.group, layout_, [this](const std::string& line) { Notify(line); });
    coordinator_->status().pid = getpid();
  }
  return absl::OkStatus();
}

// The round to start with: 0, or after a requeue one past the last one run.
// Rank 0 decides and publishes it; kNoRound when no restart is left.
absl::StatusOr<int> GroupTaskRunner::FirstRound() {
  if (!coordinator()) {
    DLP_ASSIGN_OR_RETURN(std::string base, store_->Get(RoundKeys::Base(), options_.start_timeout));
    int round = -1;
    if (!absl::SimpleAtoi(base, &round)) return -1;
    return round;
  }
  int round = task_.first_round;
  if (task_.requeues > 0) {
    auto previous = contract::ReadStatusFile(options_.status_file);
    round = previous.ok() && *previous ? (*previous)->restarts + 1 : task_.requeues;
    const contract::Group& g = options_.group;
    const int max = g.restart_policy == contract::RestartPolicy::kNever ? 0 : g.max_restarts;
    Notify(absl::StrCat("Slurm requeued the job; restart ", round, " of ", max));
    if (round > max) {
      DLP_RETURN_IF_ERROR(store_->Set(RoundKeys::Base(), kNoRound));
      contract::GroupStatus& status = coordinator_->status();
      status.restarts = round - 1;
      status.state = std::string(contract::kFailed);
      status.reason = "Slurm requeued the job and no restarts are left";
      Notify("no restarts left after the requeue");
      WriteStatus();
      return -1;
    }
  }
  DLP_RETURN_IF_ERROR(store_->Set(RoundKeys::Base(), absl::StrCat(round)));
  return round;
}

void GroupTaskRunner::StartChild(int round) {
  const RankPlan& plan = rank_->plan();
  ClusterInfo cluster = TaskCluster(task_, options_.group.framework, round);
  cluster.max_restarts = contract::TorchMaxRestarts(options_.group);
  std::map<std::string, std::string> vars = RankEnvironment(layout_, plan, cluster);
  base::SpawnOptions request;
  // The scheduler's job id is the dlp job's id (Slurm's), whatever the
  // submitter's environment (which sbatch exports) held.
  if (!task_.job_id.empty()) request.env[names::kJobId] = task_.job_id;
  for (auto& [k, v] : vars) request.env[k] = v;
  if (!vars.count(names::kTraceDir) && !trace_dir_.empty()) {
    request.env[names::kTraceDir] = std::filesystem::absolute(trace_dir_).string();
  }
  request.argv = plan.command;
  request.workdir = options_.group.workdir;
  (void)rank_->Start(request);  // a command that cannot start is a failed rank (127)
  if (rank_->exited()) {
    Post(round, ExitEvent(task_.rank, rank_->status()));
  } else {
    Post(round, StartEvent(task_.rank, rank_->status().pid, task_.host));
  }
}

void GroupTaskRunner::Notify(const std::string& line) {
  if (notify_) notify_(line);
}

void GroupTaskRunner::Post(int round, const std::string& event) {
  auto n = store_->Add(RoundKeys::Events(round), 1);
  if (n.ok()) (void)store_->Set(RoundKeys::Event(round, static_cast<int>(*n)), event);
}

std::string GroupTaskRunner::Supervise(int round) {
  std::unique_ptr<StoreWatcher> watcher;
  {
    const std::string host = coordinator() ? "127.0.0.1" : task_.nodes[0];
    auto connection =
        runtime::ConnectTcpStore(host, task_.store_port, secret_, options_.start_timeout);
    if (!connection.ok()) {
      Notify(std::string(connection.status().message()));
      return absl::StrCat(kFail, " 1");
    }
    if (coordinator()) {
      watcher = std::make_unique<StoreWatcher>(
          *std::move(connection), [round](int n) { return RoundKeys::Event(round, n); }, kEnd);
    } else {
      watcher = std::make_unique<StoreWatcher>(
          *std::move(connection), [round](int) { return RoundKeys::Decision(round); }, "");
    }
  }
  StartChild(round);
  bool reported = rank_->exited();
  while (true) {
    std::vector<pollfd> fds = {{signal_fd_, POLLIN, 0}, {watcher->fd(), POLLIN, 0}};
    rank_->CollectPollFds(&fds);
    int n = poll(fds.data(), fds.size(), 1000);
    if (n > 0 && fds[0].revents != 0) {
      bool child_exited = false;
      int sig = DrainSignalPipe(signal_fd_, &child_exited);
      if (sig != 0 && cancel_signal_ == 0) cancel_signal_ = sig;
    }
    for (size_t i = 2; n > 0 && i < fds.size(); ++i) rank_->OnPollEvent(fds[i]);
    PumpTraces();
    if (rank_->Reap() && !reported) {
      reported = true;
      Post(round, ExitEvent(task_.rank, rank_->status()));
    }
    if (cancel_signal_ != 0) return "";
    for (const std::string& value : watcher->Take()) {
      if (absl::StartsWith(value, "error: ")) {
        Notify(absl::StrCat("lost rank 0's rendezvous store: ", value.substr(7)));
        return absl::StrCat(kFail, " 1");
      }
      if (!coordinator()) return value;
      std::optional<std::string> decision = coordinator_->OnEvent(value);
      WriteStatus();
      if (!decision) continue;
      (void)store_->Set(RoundKeys::Decision(round), *decision);
      Post(round, kEnd);
      return *decision;
    }
  }
}

void GroupTaskRunner::StopChild() {
  if (rank_->running()) {
    rank_->SignalGroup(SIGTERM);
    const absl::Time grace_end = absl::Now() + options_.grace;
    while (rank_->running() && absl::Now() < grace_end) {
      std::vector<pollfd> fds;
      rank_->CollectPollFds(&fds);
      int n = poll(fds.data(), fds.size(), 100);
      for (size_t i = 0; n > 0 && i < fds.size(); ++i) rank_->OnPollEvent(fds[i]);
      rank_->Reap();
    }
    rank_->SignalGroup(SIGKILL);
    // SIGKILL cannot be refused; the bound only guards against a stuck kernel.
    const absl::Time kill_end = absl::Now() + absl::Seconds(10);
    while (rank_->running() && absl::Now() < kill_end) {
      usleep(10000);
      rank_->Reap();
    }
  }
  rank_->DrainAndClose();
  PumpTraces();  // what the rank wrote last, at exit
}

void GroupTaskRunner::Acknowledge(int round) {
  if (!coordinator()) {
    (void)store_->Set(RoundKeys::Ack(round, task_.rank), "1");
    return;
  }
  std::vector<std::string> keys;
  for (int r = 1; r < task_.world; ++r) keys.push_back(RoundKeys::Ack(round, r));
  // A task that is gone never acknowledges: bounded.
  if (!keys.empty()) (void)store_->Wait(keys, options_.grace + absl::Seconds(30));
}

bool GroupTaskRunner::Backoff() {
  const absl::Time end = absl::Now() + options_.group.backoff;
  while (absl::Now() < end && cancel_signal_ == 0) {
    pollfd fd = {signal_fd_, POLLIN, 0};
    const int64_t ms = absl::ToInt64Milliseconds(end - absl::Now()) + 1;
    if (poll(&fd, 1, static_cast<int>(std::min<int64_t>(ms, 1000))) > 0) {
      bool child_exited = false;
      cancel_signal_ = DrainSignalPipe(signal_fd_, &child_exited);
    }
  }
  return cancel_signal_ == 0;
}

void GroupTaskRunner::WriteStatus() {
  if (!coordinator()) return;
  absl::Status written = status_writer_.Write(coordinator_->status());
  if (!written.ok()) Notify(std::string(written.message()));
}

int GroupTaskRunner::Run() {
  signal_fd_ = InstallSignalPipe();
  if (signal_fd_ < 0) {
    Notify("cannot create the signal pipe");
    return 2;
  }
  absl::Status prepared = Prepare();
  if (!prepared.ok()) {
    Notify(std::string(prepared.message()));
    return 2;
  }
  absl::StatusOr<int> first = FirstRound();
  if (!first.ok()) {
    Notify(std::string(first.status().message()));
    return 1;
  }
  if (*first < 0) {
    Acknowledge(-1);  // rank 0 keeps its store up until every task read "none"
    return 1;
  }
  for (int round = *first;; ++round) {
    if (coordinator()) coordinator_->StartRound(round);
    WriteStatus();
    const std::string decision = Supervise(round);
    StopChild();
    if (!decision.empty() && decision != kRestart) Acknowledge(round);
    if (decision.empty() || (decision == kRestart && !Backoff())) {
      if (coordinator()) {
        coordinator_->status().state = std::string(contract::kFailed);
        coordinator_->status().reason = absl::StrCat("cancelled by signal ", cancel_signal_, " (",
                                                     strsignal(cancel_signal_), ")");
      }
      WriteStatus();
      return 128 + cancel_signal_;
    }
    if (decision == kDone) return 0;
    if (decision == kRestart) continue;
    int code = 1;
    (void)absl::SimpleAtoi(absl::StripPrefix(decision, absl::StrCat(kFail, " ")), &code);
    return code;
  }
}

}  // namespace

int RunGroupTask(const GroupTaskOptions& options,
                 const std::function<void(const std::string&)>& notify) {
  GroupTaskRunner task(options, notify);
  return task.Run();
}

}  // namespace dlp::launch
