#include "comm/algorithms/zero_copy.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "comm/algorithms/channels.h"
#include "comm/algorithms/reduce.h"
#include "comm/algorithms/reduce_to_each.h"
#include "comm/algorithms/segments.h"
#include "comm/core/dtype.h"

namespace dlp::runtime {
namespace {

constexpr char kZeroCopyWhat[] = "allreduce";

// What a rank writes in its note: where its buffers lie.
struct Note {
  int32_t send_window;
  int32_t recv_window;
  uint64_t send_offset;
  uint64_t recv_offset;
};
static_assert(sizeof(Note) <= ShmGroup::kNoteBytes);

// Every rank's buffers, mapped here; empty unless every rank's lie in shared memory.
SharedBuffers Agree(ShmGroup& g, const WindowRegistry& windows, size_t bytes) {
  SharedBuffers b;
  for (int j = 0; j < g.size(); ++j) {
    Note note;
    std::memcpy(&note, g.note(j), sizeof(note));
    const char* send = windows.Resolve(j, {note.send_window, note.send_offset}, bytes);
    char* recv = windows.Resolve(j, {note.recv_window, note.recv_offset}, bytes);
    if (send == nullptr || recv == nullptr) return {};
    b.send.push_back(send);
    b.recv.push_back(recv);
  }
  return b;
}

}  // namespace

void ReduceAndDeliver(ShmGroup& g, const SharedBuffers& b, size_t count, dlp_dtype t, dlp_op op) {
  const size_t block_bytes = ZeroCopyBlockBytes(g.oversubscribed());
  const size_t n = b.send.size(), elem = DTypeSize(t), block = block_bytes / elem;
  const Segments seg(count, static_cast<int>(n), elem);
  const int r = g.rank();
  std::vector<const char*> sources(n);
  std::vector<char*> results(n);
  // Slice r first, then the peers' slices, whatever of them is left.
  for (size_t i = 0; i < n; ++i) {
    const int s = static_cast<int>((static_cast<size_t>(r) + i) % n);
    const size_t first = seg.offset(s) / elem, slice = seg.bytes(s) / elem;
    const uint64_t blocks = (slice + block - 1) / block;
    std::atomic<uint64_t>& next = g.claim(s);
    for (uint64_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < blocks;) {
      const size_t c0 = static_cast<size_t>(k) * block, m = std::min(block, slice - c0);
      const size_t at = (first + c0) * elem;
      for (size_t j = 0; j < n; ++j) sources[j] = b.send[j] + at;
      // The ranks after this one first, so that the ranks' writes spread.
      for (size_t d = 1; d <= n; ++d) {
        results[d - 1] = b.recv[(static_cast<size_t>(r) + d) % n] + at;
      }
      ReduceAllStreamedToEach(results, sources, m, t, op);
    }
  }
}

bool ClaimsBlocks(int rank, int ranks, int workers) {
  return static_cast<int64_t>(rank) * workers % ranks < workers;
}

int ClaimingRanks(int ranks) {
  static const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  return cpus > 0 ? std::clamp(cpus, 1, ranks) : ranks;
}

absl::Status ZeroCopyAllreduce(ShmGroup& g, const WindowRegistry& windows, int channels,
                               const void* send, void* recv, size_t count, dlp_dtype t, dlp_op op,
                               ZeroCopyRun* run) {
  *run = {};
  const size_t elem = DTypeSize(t), bytes = count * elem;
  const int r = g.rank();
  // 0. Where every rank's buffers lie.
  const WindowRegistry::Place s = windows.Find(r, send, bytes), d = windows.Find(r, recv, bytes);
  const Note mine{s.window, d.window, s.offset, d.offset};
  std::memcpy(g.note(r), &mine, sizeof(mine));
  // Every peer left the last call's step 2, so none still claims from it.
  g.claim(r).store(0, std::memory_order_relaxed);
  const uint64_t k = g.NextRound(0);
  g.Publish(0, ShmGroup::kIn, k);
  absl::Status status = g.WaitForAll(0, ShmGroup::kIn, k, kZeroCopyWhat);
  g.Flush(0);
  if (!status.ok()) return status;
  const SharedBuffers b = Agree(g, windows, bytes);
  if (b.send.empty()) return absl::OkStatus();
  run->ran = true;

  // 1. Reduce every slice into every rank's receive buffer.
  const int workers = ClaimingRanks(g.size());
  if (ClaimsBlocks(r, g.size(), workers)) {
    // Each thread claims whatever blocks are left, so the part it is given
    // only sizes the threads. They are joined before step 2, and each fences
    // its streamed writes (ReduceAllStreamedToEach) before it ends.
    std::atomic<int> threads{0};
    (void)SplitOverChannels(count / static_cast<size_t>(workers), elem, channels,
                            [&](int, size_t, size_t) {
                              threads.fetch_add(1, std::memory_order_relaxed);
                              ReduceAndDeliver(g, b, count, t, op);
                              return absl::OkStatus();
                            });
    run->threads = threads.load(std::memory_order_relaxed);
  }
  // 2. Nobody leaves while a peer may still read or write its buffers.
  const uint64_t done = g.NextRound(0);
  g.Publish(0, ShmGroup::kIn, done);
  status = g.WaitForAll(0, ShmGroup::kIn, done, kZeroCopyWhat);
  g.Flush(0);
  return status;
}

}  // namespace dlp::runtime
