#include "launch/slurm_group.h"

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
#include "contract/env_names.h"
#include "contract/status.h"
#include "dlp/status.h"
#include "launch/child.h"
#include "launch/rank_environment.h"
#include "launch/rank_process.h"
#include "launch/signals.h"
#include "launch/slurm.h"
#include "launch/store_watcher.h"
#include "rendezvous/store.h"

namespace dlp::launch {
namespace {

namespace names = contract::env;

// The store keys of the coordination, all under "dlp-run/".
struct Keys {
  static std::string Base() { return "dlp-run/base"; }
  static std::string Events(int round) { return absl::StrCat("dlp-run/r", round, "/events"); }
  static std::string Event(int round, int n) {
    return absl::StrCat("dlp-run/r", round, "/event/", n);
  }
  static std::string Decision(int round) { return absl::StrCat("dlp-run/r", round, "/decision"); }
  static std::string Ack(int round, int rank) {
    return absl::StrCat("dlp-run/r", round, "/ack/", rank);
  }
};

constexpr char kEnd[] = "end";
constexpr char kDone[] = "done";
constexpr char kRestart[] = "restart";
constexpr char kFail[] = "fail";
constexpr char kNoRound[] = "none";

// The exit code a rank's end gives the job: its code, or 128+N for signal N.
int JobExitCode(const contract::RankStatus& r) {
  return r.signal ? 128 + *r.signal : r.exit_code.value_or(1);
}

std::string DescribeEnd(const contract::RankStatus& r) {
  std::string who = absl::StrCat("rank ", r.rank, " (", r.name, ") on host ", r.host);
  if (r.signal) {
    return absl::StrCat(who, " was killed by signal ", *r.signal, " (", strsignal(*r.signal), ")");
  }
  return absl::StrCat(who, " exited with code ", r.exit_code.value_or(-1));
}

class SlurmGroupTask {
 public:
  SlurmGroupTask(const SlurmGroupOptions& options,
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
  // Rank 0: applies one event; returns the decision once there is one.
  std::optional<std::string> OnEvent(int round, const std::string& event);
  void StopChild();
  bool Backoff();
  void WriteStatus();
  void Notify(const std::string& line);
  // After a final decision: rank 0 keeps its store up until every task has it.
  void Acknowledge(int round);
  bool coordinator() const { return task_.rank == 0; }

  const SlurmGroupOptions& options_;
  const std::function<void(const std::string&)>& notify_;
  contract::StatusFileWriter status_writer_;
  contract::GroupStatus status_;  // rank 0's view of the group
  SlurmTask task_;
  Layout layout_;
  std::unique_ptr<RankProcess> rank_;
  std::unique_ptr<runtime::TcpStoreServer> server_;
  std::unique_ptr<runtime::Store> store_;
  int signal_fd_ = -1;
  int cancel_signal_ = 0;
  int exited_ok_ = 0;  // rank 0: ranks that succeeded in this round
};

absl::Status SlurmGroupTask::Prepare() {
  DLP_ASSIGN_OR_RETURN(task_, ReadSlurmTask(CurrentEnvironment(), options_.rdzv_port));
  DLP_ASSIGN_OR_RETURN(layout_, PlaceGroup(options_.group, {}, {}, /*gpus_given=*/false));
  if (static_cast<int>(layout_.ranks.size()) != task_.world) {
    return absl::InvalidArgumentError(absl::StrCat("the group has ", layout_.ranks.size(),
                                                   " ranks but Slurm started ", task_.world,
                                                   " tasks (srun --ntasks)"));
  }
  PlaceSlurmTask(task_, &layout_);
  std::error_code ec;
  std::filesystem::create_directories(options_.log_dir, ec);
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<LineWriter> writer,
                       OpenLogFile(options_.log_dir, layout_.ranks[task_.rank].name));
  rank_ = std::make_unique<RankProcess>(layout_.ranks[task_.rank], std::move(writer));
  std::string host = "127.0.0.1";
  if (coordinator()) {
    DLP_ASSIGN_OR_RETURN(server_, runtime::TcpStoreServer::Start("0.0.0.0", task_.store_port));
  } else {
    host = task_.nodes[0];
  }
  DLP_ASSIGN_OR_RETURN(store_, runtime::ConnectTcpStore(host, task_.store_port,
                                                        options_.start_timeout));
  status_.pid = getpid();
  for (const RankPlan& plan : layout_.ranks) {
    contract::RankStatus r;
    r.name = plan.name;
    r.role = plan.role;
    r.index = plan.index;
    r.rank = plan.rank;
    r.host = plan.host;
    status_.replicas.push_back(r);
  }
  return absl::OkStatus();
}

// The round to start with: 0, or after a requeue one past the last one run.
// Rank 0 decides and publishes it; kNoRound when no restart is left.
absl::StatusOr<int> SlurmGroupTask::FirstRound() {
  if (!coordinator()) {
    DLP_ASSIGN_OR_RETURN(std::string base, store_->Get(Keys::Base(), options_.start_timeout));
    int round = -1;
    if (!absl::SimpleAtoi(base, &round)) return -1;
    return round;
  }
  int round = 0;
  if (task_.requeues > 0) {
    auto previous = contract::ReadStatusFile(options_.status_file);
    round = previous.ok() && *previous ? (*previous)->restarts + 1 : task_.requeues;
    const contract::Group& g = options_.group;
    const int max = g.restart_policy == contract::RestartPolicy::kNever ? 0 : g.max_restarts;
    Notify(absl::StrCat("Slurm requeued the job; restart ", round, " of ", max));
    if (round > max) {
      DLP_RETURN_IF_ERROR(store_->Set(Keys::Base(), kNoRound));
      status_.restarts = round - 1;
      status_.state = std::string(contract::kFailed);
      status_.reason = "Slurm requeued the job and no restarts are left";
      Notify("no restarts left after the requeue");
      WriteStatus();
      return -1;
    }
  }
  DLP_RETURN_IF_ERROR(store_->Set(Keys::Base(), absl::StrCat(round)));
  return round;
}

void SlurmGroupTask::StartChild(int round) {
  const RankPlan& plan = rank_->plan();
  std::map<std::string, std::string> vars =
      RankEnvironment(layout_, plan, SlurmCluster(task_, options_.group.framework, round));
  SpawnRequest request;
  request.env = CurrentEnvironment();
  if (!request.env.count(names::kJobId) && !task_.job_id.empty()) {
    request.env[names::kJobId] = task_.job_id;
  }
  for (auto& [k, v] : vars) request.env[k] = v;
  if (!vars.count(names::kTraceDir)) {
    const std::string& dir = options_.trace_dir.empty() ? options_.log_dir : options_.trace_dir;
    request.env[names::kTraceDir] = std::filesystem::absolute(dir).string();
  }
  request.argv = plan.command;
  request.workdir = options_.group.workdir;
  (void)rank_->Start(request);  // a command that cannot start is a failed rank (127)
  if (rank_->exited()) {
    Post(round, absl::StrCat("exit ", task_.rank, " ", JobExitCode(rank_->status()), " 0"));
  } else {
    Post(round, absl::StrCat("start ", task_.rank, " ", rank_->status().pid, " ", task_.host));
  }
}

void SlurmGroupTask::Notify(const std::string& line) {
  if (notify_) notify_(line);
}

void SlurmGroupTask::Post(int round, const std::string& event) {
  auto n = store_->Add(Keys::Events(round), 1);
  if (n.ok()) (void)store_->Set(Keys::Event(round, static_cast<int>(*n)), event);
}

std::optional<std::string> SlurmGroupTask::OnEvent(int round, const std::string& event) {
  std::vector<std::string> words = absl::StrSplit(event, absl::MaxSplits(' ', 3));
  int rank = -1;
  if (words.size() < 3 || !absl::SimpleAtoi(words[1], &rank) || rank < 0 ||
      rank >= static_cast<int>(status_.replicas.size())) {
    return std::nullopt;
  }
  contract::RankStatus& r = status_.replicas[rank];
  if (words[0] == "start") {
    (void)absl::SimpleAtoi(words[2], &r.pid);
    r.pgid = r.pid;
    if (words.size() > 3) r.host = words[3];
    r.state = std::string(contract::kRunning);
    if (std::all_of(status_.replicas.begin(), status_.replicas.end(),
                    [](const auto& x) { return x.state != contract::kStarting; })) {
      status_.state = std::string(contract::kRunning);
    }
    WriteStatus();
    return std::nullopt;
  }
  if (words[0] != "exit" || words.size() < 4) return std::nullopt;
  int code = 0, sig = 0;
  (void)absl::SimpleAtoi(words[2], &code);
  (void)absl::SimpleAtoi(words[3], &sig);
  r.exit_code.reset();
  r.signal.reset();
  if (sig != 0) {
    r.signal = sig;
  } else {
    r.exit_code = code;
  }
  r.state = std::string(code == 0 && sig == 0 ? contract::kSucceeded : contract::kFailed);
  if (r.state == contract::kSucceeded) {
    WriteStatus();
    if (++exited_ok_ < task_.world) return std::nullopt;
    status_.state = std::string(contract::kSucceeded);
    status_.reason = "";
    WriteStatus();
    return std::string(kDone);
  }
  const contract::Group& g = options_.group;
  const std::string failure = DescribeEnd(r);
  const int exit_code = JobExitCode(r);
  Notify(absl::StrCat(failure, "; stopping the other ranks"));
  for (contract::RankStatus& other : status_.replicas) {
    if (other.state == contract::kRunning || other.state == contract::kStarting) {
      other.state = std::string(contract::kFailed);
      other.signal = SIGTERM;
    }
  }
  status_.reason = failure;
  if (round < g.max_restarts && contract::ShouldRestart(g.restart_policy, code, sig)) {
    Notify(absl::StrCat("attempt ", round, " exited with code ", exit_code, "; restart ",
                        round + 1, " of ", g.max_restarts));
    WriteStatus();
    return std::string(kRestart);
  }
  if (g.max_restarts > 0) {
    Notify(absl::StrCat("attempt ", round, " exited with code ", exit_code,
                        "; no restarts left"));
  }
  status_.state = std::string(contract::kFailed);
  WriteStatus();
  return absl::StrCat(kFail, " ", exit_code);
}

std::string SlurmGroupTask::Supervise(int round) {
  exited_ok_ = 0;
  std::unique_ptr<StoreWatcher> watcher;
  {
    const std::string host = coordinator() ? "127.0.0.1" : task_.nodes[0];
    auto connection = runtime::ConnectTcpStore(host, task_.store_port, options_.start_timeout);
    if (!connection.ok()) {
      Notify(std::string(connection.status().message()));
      return absl::StrCat(kFail, " 1");
    }
    if (coordinator()) {
      watcher = std::make_unique<StoreWatcher>(
          *std::move(connection), [round](int n) { return Keys::Event(round, n); }, kEnd);
    } else {
      watcher = std::make_unique<StoreWatcher>(
          *std::move(connection), [round](int) { return Keys::Decision(round); }, "");
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
    if (rank_->Reap() && !reported) {
      reported = true;
      const contract::RankStatus& s = rank_->status();
      Post(round, absl::StrCat("exit ", task_.rank, " ", s.exit_code.value_or(0), " ",
                               s.signal.value_or(0)));
    }
    if (cancel_signal_ != 0) return "";
    for (const std::string& value : watcher->Take()) {
      if (absl::StartsWith(value, "error: ")) {
        Notify(absl::StrCat("lost rank 0's rendezvous store: ", value.substr(7)));
        return absl::StrCat(kFail, " 1");
      }
      if (!coordinator()) return value;
      std::optional<std::string> decision = OnEvent(round, value);
      if (!decision) continue;
      (void)store_->Set(Keys::Decision(round), *decision);
      Post(round, kEnd);
      return *decision;
    }
  }
}

void SlurmGroupTask::StopChild() {
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
}

void SlurmGroupTask::Acknowledge(int round) {
  if (!coordinator()) {
    (void)store_->Set(Keys::Ack(round, task_.rank), "1");
    return;
  }
  std::vector<std::string> keys;
  for (int r = 1; r < task_.world; ++r) keys.push_back(Keys::Ack(round, r));
  // A task that is gone never acknowledges: bounded.
  if (!keys.empty()) (void)store_->Wait(keys, options_.grace + absl::Seconds(30));
}

bool SlurmGroupTask::Backoff() {
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

void SlurmGroupTask::WriteStatus() {
  if (!coordinator()) return;
  absl::Status written = status_writer_.Write(status_);
  if (!written.ok()) Notify(std::string(written.message()));
}

int SlurmGroupTask::Run() {
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
    status_.restarts = round;
    status_.state = std::string(contract::kStarting);
    for (contract::RankStatus& r : status_.replicas) {
      r = contract::RankStatus{r.name, r.role, r.index, r.rank, r.host};
    }
    WriteStatus();
    const std::string decision = Supervise(round);
    StopChild();
    if (!decision.empty() && decision != kRestart) Acknowledge(round);
    if (decision.empty() || (decision == kRestart && !Backoff())) {
      status_.state = std::string(contract::kFailed);
      status_.reason = absl::StrCat("cancelled by signal ", cancel_signal_, " (",
                                    strsignal(cancel_signal_), ")");
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

int RunSlurmGroupTask(const SlurmGroupOptions& options,
                      const std::function<void(const std::string&)>& notify) {
  SlurmGroupTask task(options, notify);
  return task.Run();
}

}  // namespace dlp::launch
