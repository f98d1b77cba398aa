#include "launch/rank_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "launch/ssh_command.h"

namespace dlp::launch {

RankProcess::RankProcess(RankPlan plan, std::unique_ptr<LineWriter> writer)
    : plan_(std::move(plan)),
      writer_(std::move(writer)),
      out_(writer_.get(), Stream::kOut),
      err_(writer_.get(), Stream::kErr) {
  status_.name = plan_.name;
  status_.role = plan_.role;
  status_.index = plan_.index;
  status_.rank = plan_.rank;
  status_.host = plan_.host;
  // A remote rank's first stdout line is the ready marker of `dlp-run --exec-rank`.
  out_.set_filter([this](absl::string_view line) {
    if (ready_ || line != kReadyMarker) return true;
    ready_ = true;
    if (!exited_) status_.state = "Running";
    return false;
  });
}

RankProcess::~RankProcess() {
  for (int fd : {out_fd_, err_fd_, in_fd_}) {
    if (fd >= 0) close(fd);
  }
}

absl::Status RankProcess::Start(base::SpawnOptions options) {
  DrainAndClose();
  if (in_fd_ >= 0) close(in_fd_);
  in_fd_ = -1;
  pid_ = -1;
  exited_ = false;
  ready_ = false;
  status_.pid = status_.pgid = 0;
  status_.exit_code.reset();
  status_.signal.reset();
  status_.reason.clear();
  status_.state = "Starting";
  // Its own process group, so that the rank's whole tree is signalled at once;
  // its output through pipes, into the rank's log.
  options.grouping = base::Grouping::kProcessGroup;
  options.stdout_stream = base::Stream::kPipe;
  options.stderr_stream = base::Stream::kPipe;
  auto child = base::Spawn(options);
  if (!child.ok()) {
    const std::string error(child.status().message());
    writer_->WriteLine(Stream::kErr, absl::StrCat("dlp-run: ", error));
    exited_ = true;
    status_.state = "Failed";
    status_.exit_code = 127;
    status_.reason = absl::StrCat("could not start: ", error);
    return child.status();
  }
  pid_ = child->pid;
  out_fd_ = child->stdout_fd;
  err_fd_ = child->stderr_fd;
  in_fd_ = child->stdin_fd;
  status_.pid = status_.pgid = pid_;
  if (plan_.local) {
    ready_ = true;  // exec succeeded
    status_.state = "Running";
  }
  return absl::OkStatus();
}

void RankProcess::CollectPollFds(std::vector<pollfd>* fds) const {
  for (int fd : {out_fd_, err_fd_}) {
    if (fd >= 0) fds->push_back({fd, POLLIN, 0});
  }
}

void RankProcess::OnPollEvent(const pollfd& p) {
  if (p.revents == 0) return;
  if (p.fd == out_fd_) ReadFrom(&out_fd_, &out_);
  if (p.fd == err_fd_) ReadFrom(&err_fd_, &err_);
}

void RankProcess::ReadFrom(int* fd, LineSplitter* splitter) {
  char buf[65536];
  // Bounded: a chatty rank must not starve the others or the signal pipe.
  for (int i = 0; i < 16 && *fd >= 0; ++i) {
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n > 0) {
      splitter->Feed(absl::string_view(buf, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    splitter->Finish();  // EOF or error: flush a partial last line
    close(*fd);
    *fd = -1;
  }
}

bool RankProcess::Reap() {
  if (pid_ <= 0 || exited_) return false;
  int wstatus = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &wstatus, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r != pid_) return false;
  exited_ = true;
  if (WIFSIGNALED(wstatus)) {
    status_.signal = WTERMSIG(wstatus);
    status_.state = "Failed";
  } else {
    status_.exit_code = WEXITSTATUS(wstatus);
    status_.state = *status_.exit_code == 0 ? "Succeeded" : "Failed";
  }
  return true;
}

void RankProcess::SignalGroup(int signo) {
  if (pid_ > 0) kill(-pid_, signo);
}

absl::Status RankProcess::WriteStdinLine(const std::string& line) {
  if (in_fd_ < 0) return absl::FailedPreconditionError("the rank has no stdin pipe");
  const std::string text = line + "\n";
  // A pipe holds far more than one line: the write does not block.
  if (write(in_fd_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return absl::UnavailableError(absl::StrCat("writing to ", plan_.name, "'s stdin failed"));
  }
  return absl::OkStatus();
}

void RankProcess::CloseStdin() {
  if (in_fd_ >= 0) close(in_fd_);
  in_fd_ = -1;
}

void RankProcess::DrainAndClose() {
  ReadFrom(&out_fd_, &out_);
  ReadFrom(&err_fd_, &err_);
  for (auto [fd, splitter] : {std::pair{&out_fd_, &out_}, std::pair{&err_fd_, &err_}}) {
    if (*fd < 0) continue;
    splitter->Finish();
    close(*fd);
    *fd = -1;
  }
}

std::string RankProcess::Describe() const {
  // A remote rank's exit code is ssh's, which says more than a number.
  if (!plan_.local && status_.reason.empty() && !status_.signal && status_.exit_code) {
    const std::string who =
        absl::StrCat("rank ", plan_.rank, " (", plan_.name, ") on host ", plan_.host);
    if (*status_.exit_code == 255) {
      return absl::StrCat(who, " failed: host ", plan_.host,
                          " stopped answering or refused ssh (ssh exited with 255)");
    }
    if (*status_.exit_code > 128 && *status_.exit_code < 160) {
      const int sig = *status_.exit_code - 128;
      return absl::StrCat(who, " exited with code ", *status_.exit_code, " (killed by signal ", sig,
                          ", ", strsignal(sig), ")");
    }
  }
  return contract::DescribeRankEnd(status_);
}

}  // namespace dlp::launch
