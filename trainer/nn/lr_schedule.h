// The learning rate of each optimizer step.
#pragma once

namespace dlp::fmnist {

enum class LrSchedule {
  kConstant,  // --lr at every step
  // Cosine annealing from --lr down to 0 over the whole run (SGDR without
  // restarts): a run ends at a settled point instead of wherever its last noisy
  // step left it, so the last epoch's accuracy is the run's to compare.
  kCosine,
};

// The rate for step `step` (0-based, counted from the first epoch, so a
// resumed run continues the same curve) of a run of `total_steps` steps.
float LearningRate(LrSchedule schedule, float base, long step, long total_steps);

}  // namespace dlp::fmnist
