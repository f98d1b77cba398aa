#include "step/step_layout.h"

#include <algorithm>

namespace dlp::fmnist {

StepLayout::StepLayout(size_t parameter_count, int ranks, bool sharded_step)
    : parameters(parameter_count), sharded(sharded_step && ranks > 1) {
  const size_t n = static_cast<size_t>(std::max(ranks, 1));
  if (!sharded) {
    lead = 1;
    param_lead = 0;
    block = 0;
    flat_size = parameter_count + 1;
    param_size = parameter_count;
    return;
  }
  lead = param_lead = kLineFloats;
  block = WholeLines((lead + parameter_count + n - 1) / n);
  flat_size = param_size = block * n;
}

size_t StepLayout::Clamp(size_t i) const {
  return std::clamp(i, param_lead, param_lead + parameters);
}

}  // namespace dlp::fmnist
