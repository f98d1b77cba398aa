#include "interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace dlp::cli {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_mode{static_cast<int>(InterruptMode::kFlag)};

void OnInterrupt(int) {
  g_interrupted.store(true);
  if (g_mode.load() == static_cast<int>(InterruptMode::kExit)) {
    // Only async-signal-safe calls here.
    static const char kMessage[] = "\ndlp: interrupted; the job keeps running\n";
    (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    _exit(130);
  }
}

}  // namespace

void InstallInterruptHandler(InterruptMode mode) {
  g_mode.store(static_cast<int>(mode));
  struct sigaction action = {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
}

bool Interrupted() { return g_interrupted.load(); }

}  // namespace dlp::cli
