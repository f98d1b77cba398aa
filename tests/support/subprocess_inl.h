#pragma once

#include <algorithm>
#include <thread>

#include "absl/time/clock.h"

namespace dlp::testing {

template <typename Condition>
bool Eventually(Condition condition, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration pause = absl::Milliseconds(2);
  while (absl::Now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(pause));
    pause = std::min(pause * 2, absl::Milliseconds(100));
  }
  return condition();
}

}  // namespace dlp::testing
