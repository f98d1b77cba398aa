#include "step/shard_exchange.h"

#include <algorithm>
#include <cstring>

namespace dlp::fmnist {
namespace {

// Separate, with restrict: inlined into SumInOrder, GCC fused two sources into
// one scalar loop.
__attribute__((noinline)) void AddInto(float* __restrict sum, const float* __restrict src,
                                       size_t n) {
  for (size_t i = 0; i < n; ++i) sum[i] += src[i];
}

class CollectiveExchange : public ShardExchange {
 public:
  CollectiveExchange(Collective* group, const StepLayout& layout)
      : ShardExchange(group, layout), buffers_(2 * layout.param_size + layout.flat_size) {
    params_ = buffers_.data();
    velocity_ = params_ + layout.param_size;
    flat_ = velocity_ + layout.param_size;
  }
  bool shared() const override { return false; }
  absl::Status Load(const float* params, const float* velocity, size_t count) override {
    std::copy(params, params + count, params_ + layout_.param_lead);
    std::copy(velocity, velocity + count, velocity_ + layout_.param_lead);
    return absl::OkStatus();
  }
  absl::Status SumGradients() override { return group_->ReduceScatterSum(flat_, layout_.block); }
  absl::Status ShareParameters() override { return group_->Allgather(params_, layout_.block); }
  absl::Status ShareVelocity() override { return group_->Allgather(velocity_, layout_.block); }

 private:
  std::vector<float> buffers_;
};

class SharedMemoryExchange : public ShardExchange {
 public:
  SharedMemoryExchange(Collective* group, const StepLayout& layout,
                       std::unique_ptr<SharedBlocks> blocks)
      : ShardExchange(group, layout), blocks_(std::move(blocks)) {
    params_ = blocks_->block(0);
    velocity_ = params_ + layout.param_size;
    const auto flat_of = [&](int r) {
      return blocks_->block(r) + (r == 0 ? 2 * layout.param_size : 0);
    };
    flat_ = flat_of(group->rank());
    for (int r = 0; r < group->size(); ++r) {
      shares_.push_back(flat_of(r) + layout.OwnedBlock(group->rank()));
    }
  }
  bool shared() const override { return true; }
  absl::Status Load(const float* params, const float* velocity, size_t count) override {
    if (group_->rank() == 0) {
      std::copy(params, params + count, params_ + layout_.param_lead);
      std::copy(velocity, velocity + count, velocity_ + layout_.param_lead);
    }
    return group_->Barrier();
  }
  absl::Status SumGradients() override {
    DLP_RETURN_IF_ERROR(group_->Barrier());
    SumInOrder(shares_, flat_ + layout_.OwnedBlock(group_->rank()), layout_.block);
    return absl::OkStatus();
  }
  // The update wrote the one shared copy: the barrier is all that is left
  // (and it keeps the next backward from overwriting a gradient a rank still
  // sums).
  absl::Status ShareParameters() override { return group_->Barrier(); }
  absl::Status ShareVelocity() override { return absl::OkStatus(); }

 private:
  std::unique_ptr<SharedBlocks> blocks_;
  std::vector<const float*> shares_;  // this rank's block of every rank's gradient
};

}  // namespace

std::unique_ptr<ShardExchange> ShardExchange::ThroughCollectives(Collective* group,
                                                                 const StepLayout& layout) {
  return std::make_unique<CollectiveExchange>(group, layout);
}

absl::StatusOr<std::unique_ptr<ShardExchange>> ShardExchange::ThroughSharedMemory(
    Collective* group, const StepLayout& layout) {
  // Rank 0's block: the parameters, the velocity, its gradient; the others': a gradient.
  const size_t floats = layout.flat_size + (group->rank() == 0 ? 2 * layout.param_size : 0);
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<SharedBlocks> blocks,
                       group->AllocateShared(floats * sizeof(float)));
  return std::make_unique<SharedMemoryExchange>(group, layout, std::move(blocks));
}

void SumInOrder(const std::vector<const float*>& sources, float* out, size_t n) {
  // A chunk at a time, so that `out` may alias a source and the sums stay in L1.
  constexpr size_t kChunk = 1024;
  float sum[kChunk];
  for (size_t begin = 0; begin < n; begin += kChunk) {
    const size_t m = std::min(kChunk, n - begin);
    std::memcpy(sum, sources[0] + begin, m * sizeof(float));
    for (size_t k = 1; k < sources.size(); ++k) AddInto(sum, sources[k] + begin, m);
    std::memcpy(out + begin, sum, m * sizeof(float));
  }
}

}  // namespace dlp::fmnist
