#include "stop_request.h"

#include <pthread.h>
#include <signal.h>

#include <ctime>

namespace dlp::fmnist {
namespace {

sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  return set;
}

bool stop_requested = false;

}  // namespace

void BlockStopRequests() {
  const sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

bool StopRequested() {
  if (stop_requested) return true;
  // A pending SIGUSR1 (to the process or this thread) is taken without waiting.
  const sigset_t set = StopSignals();
  const timespec now = {0, 0};
  stop_requested = sigtimedwait(&set, nullptr, &now) == SIGUSR1;
  return stop_requested;
}

absl::StatusOr<bool> AnyRankAskedToStop(Ranks& ranks) {
  float asked = StopRequested() ? 1.0f : 0.0f;
  if (ranks.size() > 1) DLP_RETURN_IF_ERROR(ranks.AllreduceSum(&asked, 1));
  return asked > 0;
}

}  // namespace dlp::fmnist
