#include "step/activation_exchange.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "nn/cpu_gemm.h"
#include "step/shard_exchange.h"
#include "step/step_layout.h"

namespace dlp::fmnist {
namespace {

// Rows of a weight gradient multiplied out at a time: 16 KiB of the MLP's widest.
constexpr int kChunkRows = 16;

// The first cache line of every rank's slot.
struct Header {
  float loss;
  int32_t rows;
};

size_t SlotFloats(const std::vector<Network::DenseLayer>& layers, int rows) {
  size_t floats = kLineFloats;
  for (const Network::DenseLayer& l : layers) {
    floats += WholeLines(static_cast<size_t>(rows) * l.in) +
              WholeLines(static_cast<size_t>(rows) * l.out);
  }
  return floats;
}

// The rows [begin, end) of a layer's weights that `rank` of `ranks` sums and
// updates: equal shares, on whole cache lines of the weights where the width
// allows (two ranks writing one line would pass it back and forth).
std::pair<int, int> OwnedRows(int in, int out, int rank, int ranks) {
  const int64_t step = static_cast<int64_t>(kLineFloats) / std::gcd<int64_t>(out, kLineFloats);
  const auto edge = [&](int r) {
    const int64_t even = int64_t{in} * r / ranks;
    return static_cast<int>(std::min<int64_t>(in, (even + step / 2) / step * step));
  };
  return {rank == 0 ? 0 : edge(rank), rank == ranks - 1 ? in : edge(rank + 1)};
}

}  // namespace

absl::StatusOr<std::unique_ptr<ActivationExchange>> ActivationExchange::Create(
    Collective* group, Kernels* kernels, std::vector<Network::DenseLayer> layers, size_t parameters,
    int rows) {
  // Rank 0's block: the parameters, the velocity, its slot; the others': a slot.
  const size_t floats =
      SlotFloats(layers, rows) + (group->rank() == 0 ? 2 * WholeLines(parameters) : 0);
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<SharedBlocks> blocks,
                       group->AllocateShared(floats * sizeof(float)));
  return std::unique_ptr<ActivationExchange>(new ActivationExchange(
      group, kernels, std::move(layers), parameters, rows, std::move(blocks)));
}

ActivationExchange::ActivationExchange(Collective* group, Kernels* kernels,
                                       std::vector<Network::DenseLayer> layers, size_t parameters,
                                       int rows, std::unique_ptr<SharedBlocks> blocks)
    : group_(group),
      kernels_(kernels),
      layers_(std::move(layers)),
      blocks_(std::move(blocks)),
      parameters_(parameters),
      capacity_(rows),
      rows_(group->size()) {
  params_ = blocks_->block(0);
  velocity_ = params_ + WholeLines(parameters);
  int widest = 0;
  for (int q = 0; q < group->size(); ++q) {
    float* at = blocks_->block(q) + (q == 0 ? 2 * WholeLines(parameters) : 0);
    headers_.push_back(at);
    at += kLineFloats;
    std::vector<Slot>& slots = slots_.emplace_back();
    for (const Network::DenseLayer& l : layers_) {
      Slot& slot = slots.emplace_back();
      slot.input = at;
      at += WholeLines(static_cast<size_t>(rows) * l.in);
      slot.output_grad = at;
      at += WholeLines(static_cast<size_t>(rows) * l.out);
      widest = std::max(widest, l.out);
    }
  }
  chunk_.resize(static_cast<size_t>(kChunkRows) * widest);
  bias_.resize(widest);
  bias_terms_.resize(static_cast<size_t>(group->size()) * widest);
  for (int q = 0; q < group->size(); ++q) {
    bias_term_of_rank_.push_back(bias_terms_.data() + static_cast<size_t>(q) * bias_.size());
  }
}

absl::Status ActivationExchange::Load(const float* params, const float* velocity) {
  if (group_->rank() == 0) {
    std::copy(params, params + parameters_, params_);
    std::copy(velocity, velocity + parameters_, velocity_);
  }
  return group_->Barrier();
}

absl::Status ActivationExchange::Publish(const Network& net, const float* x, int rows, float loss) {
  if (rows < 0 || rows > capacity_) {
    return absl::InternalError(
        absl::StrCat("a step of ", rows, " samples on a rank that has room for ", capacity_));
  }
  const int rank = group_->rank();
  const Header header{loss, rows};
  std::memcpy(headers_[rank], &header, sizeof(header));
  for (size_t l = 0; l < layers_.size(); ++l) {
    const size_t index = layers_[l].index;
    const Slot& slot = slots_[rank][l];
    if (const float* input = net.LayerInput(index, x); input != slot.input) {
      std::memcpy(slot.input, input, static_cast<size_t>(rows) * layers_[l].in * sizeof(float));
    }
    std::memcpy(slot.output_grad, net.OutputGradient(index),
                static_cast<size_t>(rows) * layers_[l].out * sizeof(float));
  }
  return absl::OkStatus();
}

absl::StatusOr<float> ActivationExchange::SumAndUpdate(const Update& update) {
  DLP_RETURN_IF_ERROR(group_->Barrier());
  float loss = 0;
  for (int q = 0; q < group_->size(); ++q) {
    Header header;
    std::memcpy(&header, headers_[q], sizeof(header));
    rows_[q] = std::clamp(header.rows, 0, capacity_);  // never past a peer's slot
    loss = q == 0 ? header.loss : loss + header.loss;
  }
  for (size_t l = 0; l < layers_.size(); ++l) MultiplyOutLayer(l, update);
  // The next step's factors must not overwrite those another rank still reads.
  DLP_RETURN_IF_ERROR(group_->Barrier());
  return loss;
}

void ActivationExchange::MultiplyOutLayer(size_t l, const Update& update) {
  const Network::DenseLayer& layer = layers_[l];
  const int rank = group_->rank(), ranks = group_->size();
  const auto [begin, end] = OwnedRows(layer.in, layer.out, rank, ranks);
  thread_local std::vector<TransposedTerm> terms;
  for (int i0 = begin; i0 < end; i0 += kChunkRows) {
    const int m = std::min(kChunkRows, end - i0);
    terms.clear();
    for (int q = 0; q < ranks; ++q) {
      terms.push_back({slots_[q][l].input + i0, layer.in, slots_[q][l].output_grad, rows_[q]});
    }
    CpuGemmSumOfTransposed(m, layer.out, terms, chunk_.data());
    update(layer.offset + static_cast<size_t>(i0) * layer.out, chunk_.data(),
           static_cast<size_t>(m) * layer.out);
  }
  if (rank != ranks - 1) return;
  // The bias, after the last rows: each rank's column sums, added in rank order.
  const size_t out = layer.out;
  for (int q = 0; q < ranks; ++q) {
    kernels_->SumRows(slots_[q][l].output_grad, rows_[q], layer.out,
                      bias_terms_.data() + static_cast<size_t>(q) * bias_.size());
  }
  SumInOrder(bias_term_of_rank_, bias_.data(), out);
  update(layer.offset + static_cast<size_t>(layer.in) * out, bias_.data(), out);
}

}  // namespace dlp::fmnist
