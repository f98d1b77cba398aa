#include "comm/zero_copy.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "comm/dtype.h"
#include "comm/reduce.h"
#include "comm/segments.h"

namespace dlp::runtime {
namespace {

constexpr char kWhat[] = "allreduce";
// The block a slice is reduced through: stays in L1/L2 between the reduction and the copies.
constexpr size_t kBlockBytes = 32 << 10;
// Results larger than the caches are written without being read first.
constexpr size_t kStreamBytes = 8 << 20;

void CopyCached(char* dst, const char* src, size_t n) { std::memcpy(dst, src, n); }

// What a rank writes in its note: where its buffers lie.
struct Note {
  int32_t send_window;
  int32_t recv_window;
  uint64_t send_offset;
  uint64_t recv_offset;
};
static_assert(sizeof(Note) <= ShmGroup::kNoteBytes);

// Every rank's buffers, mapped here; empty unless every rank's lie in shared memory.
struct Buffers {
  std::vector<const char*> send;
  std::vector<char*> recv;
};

Buffers Agree(ShmGroup& g, const WindowRegistry& windows, size_t bytes) {
  Buffers b;
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

// Slice r of every rank's receive buffer = op over every send's slice r, in
// rank order, a block at a time: reduced in cache, then written to every
// rank's buffer, the ranks after this one first.
void ReduceAndDeliver(const Buffers& b, int r, const Segments& seg, dlp_dtype t, dlp_op op,
                      void (*copy)(char*, const char*, size_t)) {
  const size_t n = b.send.size(), elem = DTypeSize(t), block = kBlockBytes / elem;
  thread_local std::vector<char> scratch;
  scratch.resize(kBlockBytes);
  std::vector<const char*> sources(n);
  const size_t first = seg.offset(r) / elem, count = seg.bytes(r) / elem;
  for (size_t c0 = 0; c0 < count; c0 += block) {
    const size_t m = std::min(block, count - c0), at = (first + c0) * elem;
    for (size_t j = 0; j < n; ++j) sources[j] = b.send[j] + at;
    ReduceAll(scratch.data(), sources, m, t, op);
    for (size_t i = 1; i <= n; ++i) {
      copy(b.recv[(static_cast<size_t>(r) + i) % n] + at, scratch.data(), m * elem);
    }
  }
}

}  // namespace

absl::Status ZeroCopyAllreduce(ShmGroup& g, const WindowRegistry& windows, const void* send,
                               void* recv, size_t count, dlp_dtype t, dlp_op op, bool* ran) {
  *ran = false;
  const size_t elem = DTypeSize(t), bytes = count * elem;
  const int n = g.size(), r = g.rank();
  // 0. Where every rank's buffers lie.
  const WindowRegistry::Place s = windows.Find(r, send, bytes), d = windows.Find(r, recv, bytes);
  const Note mine{s.window, d.window, s.offset, d.offset};
  std::memcpy(g.note(r), &mine, sizeof(mine));
  const uint64_t k = g.NextRound(0);
  g.Publish(0, ShmGroup::kIn, k);
  absl::Status status = g.WaitForAll(0, ShmGroup::kIn, k, kWhat);
  g.Flush(0);
  if (!status.ok()) return status;
  const Buffers b = Agree(g, windows, bytes);
  if (b.send.empty()) return absl::OkStatus();
  *ran = true;

  // 1. Reduce slice r into every rank's receive buffer.
  const Segments seg(count, n, elem);
  ReduceAndDeliver(b, r, seg, t, op, bytes >= kStreamBytes ? CopyStreaming : CopyCached);
  // 2. Nobody leaves while a peer may still read or write its buffers.
  const uint64_t done = g.NextRound(0);
  g.Publish(0, ShmGroup::kIn, done);
  status = g.WaitForAll(0, ShmGroup::kIn, done, kWhat);
  g.Flush(0);
  return status;
}

}  // namespace dlp::runtime
