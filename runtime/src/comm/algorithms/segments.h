// How the collectives cut a buffer of `count` elements into one segment per
// rank: the first count % n segments hold one element more. Offsets and
// sizes are in bytes.
#pragma once

#include <algorithm>
#include <cstddef>

namespace dlp::runtime {

struct Segments {
  Segments(size_t count, int n, size_t elem) : count_(count), n_(n), elem_(elem) {}
  size_t offset(int i) const {
    size_t base = count_ / static_cast<size_t>(n_), extra = count_ % static_cast<size_t>(n_);
    size_t ui = static_cast<size_t>(i);
    return (ui * base + std::min(ui, extra)) * elem_;
  }
  size_t bytes(int i) const { return offset(i + 1) - offset(i); }
  size_t count_;
  int n_;
  size_t elem_;
};

}  // namespace dlp::runtime
