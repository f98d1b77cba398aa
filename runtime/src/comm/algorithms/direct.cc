#include "comm/algorithms/direct.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "comm/algorithms/channels.h"
#include "comm/algorithms/reduce.h"
#include "comm/algorithms/segments.h"
#include "comm/core/dtype.h"

namespace dlp::runtime {
namespace {

constexpr char kWhat[] = "allreduce";

}  // namespace

absl::Status DirectAllreduce(ShmGroup& g, int lane, const void* send, void* recv, size_t count,
                             dlp_dtype t, dlp_op op, size_t chunk_bytes, CopyFn copy_out) {
  const size_t elem = DTypeSize(t);
  const int n = g.size(), r = g.rank();
  const size_t chunk = std::max<size_t>(1, std::min(chunk_bytes, ShmGroup::kSlotBytes) / elem);
  std::vector<const char*> sources(static_cast<size_t>(n));
  for (size_t c0 = 0; c0 < count; c0 += chunk) {
    const size_t m = std::min(chunk, count - c0);
    const uint64_t k = g.NextRound(lane);
    const Segments seg(m, n, elem);
    const char* src = static_cast<const char*>(send) + c0 * elem;
    char* dst = static_cast<char*>(recv) + c0 * elem;

    // 1. Stage the slices the peers reduce.
    char* staged = g.in(r, lane, k);
    std::memcpy(staged, src, seg.offset(r));
    std::memcpy(staged + seg.offset(r + 1), src + seg.offset(r + 1), m * elem - seg.offset(r + 1));
    g.Publish(lane, ShmGroup::kIn, k);
    if (absl::Status s = g.WaitForAll(lane, ShmGroup::kIn, k, kWhat); !s.ok()) return s;

    // 2. Reduce slice r of every input, in rank order.
    const size_t mine = seg.offset(r);
    for (int j = 0; j < n; ++j) {
      sources[static_cast<size_t>(j)] = (j == r ? src : g.in(j, lane, k)) + mine;
    }
    if (seg.bytes(r) > 0) ReduceAll(g.out(r, lane) + mine, sources, seg.bytes(r) / elem, t, op);
    g.Publish(lane, ShmGroup::kOut, k);

    // 3. Gather every reduced slice, starting with this rank's own.
    for (int i = 0; i < n; ++i) {
      const int j = (r + i) % n;
      if (j != r) {
        if (absl::Status s = g.WaitFor(j, lane, ShmGroup::kOut, k, kWhat); !s.ok()) return s;
      }
      copy_out(dst + seg.offset(j), g.out(j, lane) + seg.offset(j), seg.bytes(j));
    }
  }
  g.Flush(lane);
  return absl::OkStatus();
}

absl::Status LanedDirectAllreduce(ShmGroup& g, const void* send, void* recv, size_t count,
                                  dlp_dtype t, dlp_op op, size_t chunk_bytes) {
  const size_t elem = DTypeSize(t);
  // Every lane's results together decide whether they stay in the cache.
  const CopyFn copy_out = ResultCopy(count * elem, g.size());
  return SplitOverChannels(count, elem, g.lanes(), [&](int lane, size_t begin, size_t end) {
    return DirectAllreduce(g, lane, static_cast<const char*>(send) + begin * elem,
                           static_cast<char*>(recv) + begin * elem, end - begin, t, op, chunk_bytes,
                           copy_out);
  });
}

absl::Status DirectReduceScatter(ShmGroup& g, int lane, const void* send, void* recv, size_t count,
                                 size_t stride, dlp_dtype t, dlp_op op, size_t chunk_bytes,
                                 bool stage_own) {
  const size_t elem = DTypeSize(t);
  const int n = g.size(), r = g.rank();
  // A round stages one piece of each of the N blocks: N pieces fill a slot.
  const size_t piece = std::max<size_t>(
      1, std::min(chunk_bytes, ShmGroup::kSlotBytes) / elem / static_cast<size_t>(n));
  const char* in = static_cast<const char*>(send);
  std::vector<const char*> sources(static_cast<size_t>(n));
  for (size_t c0 = 0; c0 < count; c0 += piece) {
    const size_t m = std::min(piece, count - c0);
    const uint64_t k = g.NextRound(lane);
    char* staged = g.in(r, lane, k);
    auto input = [&](int j) { return in + (static_cast<size_t>(j) * stride + c0) * elem; };
    auto slot_piece = [&](int j) { return static_cast<size_t>(j) * piece * elem; };
    for (int j = 0; j < n; ++j) {
      if (j != r || stage_own) std::memcpy(staged + slot_piece(j), input(j), m * elem);
    }
    g.Publish(lane, ShmGroup::kIn, k);
    if (absl::Status s = g.WaitForAll(lane, ShmGroup::kIn, k, "reduce-scatter"); !s.ok()) return s;
    for (int j = 0; j < n; ++j) {
      sources[static_cast<size_t>(j)] =
          j == r && !stage_own ? input(r) : g.in(j, lane, k) + slot_piece(r);
    }
    ReduceAll(static_cast<char*>(recv) + c0 * elem, sources, m, t, op);
  }
  g.Flush(lane);
  return absl::OkStatus();
}

absl::Status LanedDirectReduceScatter(ShmGroup& g, const void* send, void* recv,
                                      size_t count_per_rank, dlp_dtype t, dlp_op op,
                                      size_t chunk_bytes) {
  const size_t elem = DTypeSize(t);
  const size_t n = static_cast<size_t>(g.size());
  const auto* in = static_cast<const char*>(send);
  auto* out = static_cast<char*>(recv);
  const bool overlaps = out < in + n * count_per_rank * elem && in < out + count_per_rank * elem;
  // An element of a block stands for the N elements a lane moves for it.
  return SplitOverChannels(
      count_per_rank, elem * n, g.lanes(), [&](int lane, size_t begin, size_t end) {
        return DirectReduceScatter(g, lane, in + begin * elem, out + begin * elem, end - begin,
                                   count_per_rank, t, op, chunk_bytes, overlaps);
      });
}

absl::Status DirectAllgather(ShmGroup& g, int lane, const void* send, void* recv, size_t count,
                             size_t stride, dlp_dtype t, size_t chunk_bytes) {
  const size_t elem = DTypeSize(t);
  const int n = g.size(), r = g.rank();
  const size_t piece = std::max<size_t>(1, std::min(chunk_bytes, ShmGroup::kSlotBytes) / elem);
  const char* mine = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  auto block = [&](int j) { return out + static_cast<size_t>(j) * stride * elem; };
  if (block(r) != mine) std::memmove(block(r), mine, count * elem);
  for (size_t c0 = 0; c0 < count; c0 += piece) {
    const size_t m = std::min(piece, count - c0);
    const uint64_t k = g.NextRound(lane);
    std::memcpy(g.in(r, lane, k), mine + c0 * elem, m * elem);
    g.Publish(lane, ShmGroup::kIn, k);
    for (int i = 1; i < n; ++i) {
      const int j = (r + i) % n;
      if (absl::Status s = g.WaitFor(j, lane, ShmGroup::kIn, k, "allgather"); !s.ok()) return s;
      std::memcpy(block(j) + c0 * elem, g.in(j, lane, k), m * elem);
    }
  }
  g.Flush(lane);
  return absl::OkStatus();
}

absl::Status LanedDirectAllgather(ShmGroup& g, const void* send, void* recv, size_t count_per_rank,
                                  dlp_dtype t, size_t chunk_bytes) {
  const size_t elem = DTypeSize(t);
  return SplitOverChannels(count_per_rank, elem * static_cast<size_t>(g.size()), g.lanes(),
                           [&](int lane, size_t begin, size_t end) {
                             return DirectAllgather(g, lane,
                                                    static_cast<const char*>(send) + begin * elem,
                                                    static_cast<char*>(recv) + begin * elem,
                                                    end - begin, count_per_rank, t, chunk_bytes);
                           });
}

absl::Status OneShotAllreduce(ShmGroup& g, const void* send, void* recv, size_t count, dlp_dtype t,
                              dlp_op op) {
  const size_t bytes = count * DTypeSize(t);
  const int n = g.size();
  const uint64_t k = g.NextRound(0);
  std::memcpy(g.in(g.rank(), 0, k), send, bytes);
  g.Publish(0, ShmGroup::kIn, k);
  if (absl::Status s = g.WaitForAll(0, ShmGroup::kIn, k, kWhat); !s.ok()) return s;
  // Every source is a slot, never `recv`: in place is safe.
  std::vector<const char*> sources(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) sources[static_cast<size_t>(j)] = g.in(j, 0, k);
  ReduceAll(static_cast<char*>(recv), sources, count, t, op);
  g.Flush(0);
  return absl::OkStatus();
}

absl::Status GroupBarrier(ShmGroup& g) {
  const uint64_t k = g.NextRound(0);
  g.Publish(0, ShmGroup::kIn, k);
  absl::Status s = g.WaitForAll(0, ShmGroup::kIn, k, "barrier");
  g.Flush(0);
  return s;
}

}  // namespace dlp::runtime
