#include "nn/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace dlp::fmnist {

float LearningRate(LrSchedule schedule, float base, long step, long total_steps) {
  if (schedule == LrSchedule::kConstant || total_steps <= 0) return base;
  const double progress =
      std::clamp(static_cast<double>(step) / static_cast<double>(total_steps), 0.0, 1.0);
  return static_cast<float>(base * 0.5 * (1.0 + std::cos(std::numbers::pi * progress)));
}

}  // namespace dlp::fmnist
