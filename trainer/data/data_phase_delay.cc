#include "data/data_phase_delay.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace dlp::fmnist {

DataPhaseDelay::DataPhaseDelay(int rank) {
  const char* slow_rank = std::getenv("DLP_TEST_SLOW_RANK");
  const char* slow_ms = std::getenv("DLP_TEST_SLOW_MS");
  if (slow_rank == nullptr || slow_ms == nullptr || std::atoi(slow_rank) != rank) return;
  ms_ = std::max(0, std::atoi(slow_ms));
}

void DataPhaseDelay::Apply() const {
  if (ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
}

}  // namespace dlp::fmnist
