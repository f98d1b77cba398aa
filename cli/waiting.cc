#include "waiting.h"

#include <unistd.h>

#include <cstdio>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common.h"
#include "interrupt.h"
#include "job_output.h"

namespace dlp::cli {
namespace {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled && IsTty(STDERR_FILENO)) {}
  ~ProgressLine() { Clear(); }

  void Show(const Job& job, absl::Time since) {
    if (!enabled_) return;
    const absl::Time start = job.started ? *job.started : since;
    const std::string line =
        absl::StrCat("job ", job.id, job.name.empty() ? "" : absl::StrCat(" (", job.name, ")"),
                     ": ", std::string(JobStateName(job.state)), ", ", FormatAge(absl::Now() - start),
                     job.reason.empty() || job.state != JobState::kQueued
                         ? ""
                         : absl::StrCat(" - ", job.reason));
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  }

  void Clear() {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  bool enabled_;
  bool shown_ = false;
};

// Off a terminal: each new reason of a queued job, once.
class ReasonLines {
 public:
  explicit ReasonLines(bool enabled) : enabled_(enabled && !IsTty(STDERR_FILENO)) {}
  void Show(const Job& job) {
    if (!enabled_ || job.state != JobState::kQueued || job.reason.empty() || job.reason == last_) {
      return;
    }
    last_ = job.reason;
    std::fprintf(stderr, "job %s%s: Queued - %s\n", job.id.c_str(),
                 job.name.empty() ? "" : absl::StrCat(" (", job.name, ")").c_str(),
                 job.reason.c_str());
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  std::string last_;
};

}  // namespace

absl::StatusOr<Job> WaitWhileQueued(Client& client, const std::string& id, const WaitFlags& flags) {
  InstallInterruptHandler(InterruptMode::kFlag);
  ProgressLine progress(flags.progress);
  ReasonLines reasons(flags.progress);
  const absl::Time begin = absl::Now();
  std::optional<Job> started;
  WaitOptions options;
  options.timeout = flags.deadline - begin;
  options.on_update = [&](const Job& job) {
    if (job.state != JobState::kQueued) {
      started = job;
      return;
    }
    progress.Show(job, begin);
    reasons.Show(job);
  };
  options.cancelled = [&] { return Interrupted() || started.has_value(); };
  absl::StatusOr<Job> job = client.Wait(id, options);
  if (started) return *started;
  return job;
}

absl::StatusOr<Job> WaitForJob(Client& client, const std::string& id, const WaitFlags& flags) {
  InstallInterruptHandler(InterruptMode::kFlag);
  ProgressLine progress(flags.progress);
  const absl::Time begin = absl::Now();
  WaitOptions options;
  options.timeout = flags.deadline - begin;
  options.on_update = [&](const Job& job) {
    if (!IsTerminal(job.state)) progress.Show(job, begin);
  };
  options.cancelled = [] { return Interrupted(); };
  return client.Wait(id, options);  // the progress line is cleared on return
}

}  // namespace dlp::cli
