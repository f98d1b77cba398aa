// What dlp-run tells each rank it starts, in its environment
// (docs/runtime-contract.md): how many ranks there are, and how many of them
// on this host. A process started alone has neither.
#pragma once

#include "dlp/status.h"

namespace dlp::fmnist {

// WORLD_SIZE (or DLP_WORLD_SIZE); 1 without either. InvalidArgument for a
// value that is not a rank count.
absl::StatusOr<int> WorldSizeFromEnv();

// LOCAL_WORLD_SIZE; 1 without it or for a value that is not a count.
int LocalWorldSizeFromEnv();

}  // namespace dlp::fmnist
