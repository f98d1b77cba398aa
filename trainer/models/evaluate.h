// A model's accuracy on a test set, shared among the ranks: each rank
// evaluates its contiguous slice and one allreduce sums the counts.
#pragma once

#include "data/host_dataset.h"
#include "dlp/status.h"
#include "models/network.h"
#include "nn/kernels.h"
#include "parallel/collective.h"

namespace dlp::fmnist {

// The fraction of `test` that `params` (device memory) classifies right, the
// same on every rank; 0 for an empty set. Errors of the device or the allreduce.
absl::StatusOr<double> TestAccuracy(const Samples& test, Network& net, Kernels& k,
                                    const float* params, Collective& group);

}  // namespace dlp::fmnist
