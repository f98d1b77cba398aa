#include "step_plan.h"

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlp/status.h"

namespace dlp::fmnist {

int LocalRanks() {
  int local_ranks = 1;
  if (const char* v = std::getenv("LOCAL_WORLD_SIZE");
      v == nullptr || !absl::SimpleAtoi(v, &local_ranks)) {
    return 1;
  }
  return std::max(local_ranks, 1);
}

// Buckets beside backward pay off only where the bucket thread has a core of
// its own (or the GPU computes); otherwise it takes turns with backward.
bool ShouldOverlap(TrainOptions::Overlap overlap, const std::string& device) {
  if (overlap != TrainOptions::Overlap::kAuto) return overlap == TrainOptions::Overlap::kOn;
  if (device == "cuda") return true;
  const long cores = static_cast<long>(std::thread::hardware_concurrency());
  return cores >= 2L * LocalRanks();
}

// Automatically only where the reduce-scatter and allgather move no more
// bytes between hosts than the allreduce: one host, or one rank a host. With
// several hosts of several ranks the allreduce is hierarchical (one leader a
// host on the slow links) and the block collectives are not.
absl::StatusOr<bool> ShouldShard(TrainOptions::Shard shard, int ranks, bool overlap,
                                 const Kernels& k) {
  if (ranks == 1 || shard == TrainOptions::Shard::kOff) return false;
  if (shard == TrainOptions::Shard::kOn && !k.host_memory()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--shard-optimizer on needs --device cpu; this run trains on ", k.name()));
  }
  if (shard == TrainOptions::Shard::kOn) return true;
  const int local = LocalRanks();
  return k.host_memory() && !overlap && (local == ranks || local == 1);
}

absl::StatusOr<Exchange> MakeExchange(TrainOptions::Toggle shared, Collective* group,
                                      Kernels* kernels, const StepLayout& layout,
                                      const Network& net, int per_rank) {
  const bool one_host = LocalRanks() == group->size();
  if (shared == TrainOptions::Toggle::kOff ||
      (shared == TrainOptions::Toggle::kAuto && !one_host)) {
    return Exchange{ShardExchange::ThroughCollectives(group, layout), nullptr};
  }
  absl::Status status;
  if (std::vector<Network::DenseLayer> dense = net.DenseLayers(); !dense.empty()) {
    absl::StatusOr<std::unique_ptr<ActivationExchange>> activations =
        ActivationExchange::Create(group, kernels, std::move(dense), layout.parameters, per_rank);
    if (activations.ok()) return Exchange{nullptr, *std::move(activations)};
    status = activations.status();
  } else {
    absl::StatusOr<std::unique_ptr<ShardExchange>> gradients =
        ShardExchange::ThroughSharedMemory(group, layout);
    if (gradients.ok()) return Exchange{*std::move(gradients), nullptr};
    status = gradients.status();
  }
  // A rank that cannot share (another host, a full /dev/shm) fails the
  // allocation on every rank, so every rank falls back alike.
  if (shared == TrainOptions::Toggle::kAuto) {
    return Exchange{ShardExchange::ThroughCollectives(group, layout), nullptr};
  }
  return status;
}

std::string StepNote(bool overlap, const Exchange& step) {
  if (step.activations != nullptr) {
    return ", weight gradients summed from every rank's activations in shared memory after "
           "backward, each rank updating its rows of one shared model";
  }
  if (const ShardExchange* exchange = step.gradients.get(); exchange != nullptr) {
    return absl::StrCat(", gradients ",
                        exchange->shared() ? "summed in shared memory" : "reduce-scattered",
                        " after backward, each rank updating its share of ",
                        exchange->shared() ? "one shared model" : "the model");
  }
  return overlap ? ", gradients all-reduced beside backward"
                 : ", gradients all-reduced after backward";
}

}  // namespace dlp::fmnist
