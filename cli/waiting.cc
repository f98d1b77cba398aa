#include "waiting.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common.h"
#include "interrupt.h"
#include "job_output.h"

namespace dlp::cli {
namespace {

// Backend waits are chunked so that Ctrl-C is noticed within this period.
constexpr absl::Duration kPollPeriod = absl::Milliseconds(500);

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

}  // namespace

absl::StatusOr<Job> WaitForJob(Client& client, const std::string& id, const WaitFlags& flags) {
  InstallInterruptHandler(InterruptMode::kFlag);
  ProgressLine progress(flags.progress);
  const absl::Time begin = absl::Now();
  const absl::Time deadline = flags.deadline;
  auto interrupted = [&] {
    progress.Clear();
    return absl::CancelledError(
        absl::StrCat("interrupted while waiting for job ", id, "; the job keeps running"));
  };
  while (true) {
    if (Interrupted()) return interrupted();
    const absl::Duration chunk =
        std::min(kPollPeriod, std::max(deadline - absl::Now(), absl::ZeroDuration()));
    absl::StatusOr<Job> job = client.backend().Wait(id, chunk);
    // Ctrl-C may have broken the request itself (EINTR): report the interrupt.
    if (Interrupted()) return interrupted();
    if (!job.ok()) return job.status();
    if (IsTerminal(job->state)) return job;
    progress.Show(*job, begin);
    if (absl::Now() >= deadline) {
      progress.Clear();
      return absl::DeadlineExceededError(
          absl::StrCat("timed out waiting for job ", id, ": still ",
                       std::string(JobStateName(job->state))));
    }
  }
}

}  // namespace dlp::cli
