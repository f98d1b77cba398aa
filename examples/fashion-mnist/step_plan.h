// How a training step passes the gradient between the ranks: all-reduced in
// buckets beside backward or once after it (the default, as a DDP program
// does), or, asked for by name, a sharded optimizer (ZeRO stage 1) whose
// ranks exchange through collectives or one model in shared memory.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "activation_exchange.h"
#include "collective.h"
#include "kernels.h"
#include "network.h"
#include "shard_exchange.h"
#include "step_layout.h"
#include "trainer.h"

namespace dlp::fmnist {

// The ranks on this host (LOCAL_WORLD_SIZE); 1 when not under a launcher.
int LocalRanks();

// Whether the buckets go beside backward.
bool ShouldOverlap(TrainOptions::Overlap overlap, const std::string& device);

// Whether the optimizer is sharded over `ranks`.
absl::StatusOr<bool> ShouldShard(TrainOptions::Shard shard, int ranks, bool overlap,
                                 const Kernels& k);

// How a sharded step's ranks pass what they computed: one of the two.
struct Exchange {
  std::unique_ptr<ShardExchange> gradients;
  std::unique_ptr<ActivationExchange> activations;  // a dense model on one host
};

// Through shared memory where it may and can (every rank on this host): the
// layers' factors of a dense model, else the gradients; otherwise through
// collectives.
absl::StatusOr<Exchange> MakeExchange(TrainOptions::Toggle shared, Collective* group,
                                      Kernels* kernels, const StepLayout& layout,
                                      const Network& net, int per_rank);

// The end of rank 0's first note: how this run's step passes the gradient.
std::string StepNote(bool overlap, const Exchange& step);

}  // namespace dlp::fmnist
