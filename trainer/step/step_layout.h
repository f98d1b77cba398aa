// Where a training step keeps the loss, the gradient and the model in flat
// buffers, and which part of them each rank updates.
//
// All-reduced (the default where it runs): `flat` is the loss at [0] and then
// the gradient; every rank applies the whole update to its own copy.
//
// Sharded (ZeRO stage 1, Rajbhandari et al. 2020): the gradient is
// reduce-scattered instead, each rank updates the momentum and parameters of
// its 1/N of the model, and an allgather brings every rank the new parameters.
// The same bytes cross between the ranks as in an allreduce, but the
// optimizer's pass over the model is divided among the ranks instead of
// repeated by each: where ranks share cores, that pass is a large part of a
// step. `flat`, the parameters and the velocity then share one layout: the
// loss at [0] (in rank 0's block, so rank 0 reports the global sum), padding
// to a cache line, the model, padding to N equal blocks.
#pragma once

#include <cstddef>

namespace dlp::fmnist {

// Floats in a cache line, and a count of floats rounded up to whole lines:
// blocks that ranks write side by side start on lines of their own.
inline constexpr size_t kLineFloats = 64 / sizeof(float);
inline size_t WholeLines(size_t floats) {
  return (floats + kLineFloats - 1) / kLineFloats * kLineFloats;
}

struct StepLayout {
  StepLayout(size_t parameter_count, int ranks, bool sharded);

  size_t parameters;
  bool sharded;
  size_t lead;        // floats of `flat` before the gradient
  size_t param_lead;  // floats of the parameter and velocity buffers before the model
  size_t block;       // sharded: floats each rank owns (a multiple of a cache line)
  size_t flat_size;   // floats of `flat`
  size_t param_size;  // floats of the parameter and velocity buffers

  // Sharded: the model's floats rank `rank` updates, [begin, end) as indices
  // into the buffers (empty for a rank whose block is all padding).
  size_t OwnedBegin(int rank) const { return Clamp(static_cast<size_t>(rank) * block); }
  size_t OwnedEnd(int rank) const { return Clamp((static_cast<size_t>(rank) + 1) * block); }
  // Sharded: where rank `rank`'s block starts (padding and the loss included).
  size_t OwnedBlock(int rank) const { return static_cast<size_t>(rank) * block; }

 private:
  size_t Clamp(size_t i) const;
};

}  // namespace dlp::fmnist
