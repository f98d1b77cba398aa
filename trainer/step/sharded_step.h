// This engine's own steps, asked for by name (--shard-optimizer,
// --shared-model): a sharded optimizer (ZeRO stage 1, step_layout.h) whose
// ranks exchange through collectives, or through one model in shared memory
// (shard_exchange.h; for a dense model, activation_exchange.h). A PyTorch DDP
// or Keras program does neither: it all-reduces the whole gradient and every
// rank applies the whole update, as the example's default step does.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "models/network.h"
#include "nn/kernels.h"
#include "parallel/collective.h"
#include "step/training_step.h"

namespace dlp::fmnist {

// A flag's on, off or auto.
enum class Toggle { kAuto, kOn, kOff };

struct ShardOptions {
  // Reduce-scatter the gradient and update 1/N of the model per rank, on the
  // CPU, when the gradient goes in one piece after backward. kAuto: wherever
  // that holds and the ranks are on one host (or one a host); kOn where it
  // cannot be is an error.
  Toggle shard_optimizer = Toggle::kOff;
  // Sharded, keep one copy of the model in shared memory that the ranks of one
  // host update in place, instead of one a rank. kAuto: when every rank is on
  // this host; kOn where they are not is an error.
  Toggle shared_model = Toggle::kOff;
  bool overlap = false;  // the gradient is all-reduced beside backward
  int local_ranks = 1;   // the ranks on this host (LOCAL_WORLD_SIZE)
  int per_rank = 0;      // the most samples a rank has in a step
};

// The sharded step these options ask for, or null where the step is the
// default allreduce. FailedPrecondition where a mode asked for with kOn
// cannot run (on a GPU; --shared-model across hosts).
absl::StatusOr<std::unique_ptr<TrainingStep>> MakeShardedStep(const ShardOptions& options,
                                                              Collective* group, Kernels* kernels,
                                                              const Network& net);

}  // namespace dlp::fmnist
