// Which allreduce algorithm runs: the one place that decides, from the
// group's shape and the message size (docs/collectives.md derives the table
// from the α–β cost model and the figures measured in bench/history/RESULTS-2026.md).
//
//   ranks  all on one host  bytes                 algorithm
//   1      -                any                   copy (no peers)
//   ≥ 2    yes (shm group)  ≤ kOneShotBytes / N   one-shot
//   ≥ 2    yes, a core each larger                direct
//   ≥ 2    yes, ranks share ≤ kSharedDirectBytes  direct
//          cores            larger                ring
//   ≥ 2    no               ≤ kDoublingBytes      doubling (recursive doubling, TCP)
//   ≥ 2    no, some host    larger                hierarchical
//          with several
//   ≥ 2    no, one per host larger                ring
//
// DLP_COMM_ALGO (CommOptions::algo) forces one: ring, direct, oneshot (one-shot
// while the message fits a slot, direct beyond), doubling, hierarchical, or
// auto (the table).
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace dlp::runtime {

enum class Algo { kRing, kDirect, kOneShot, kDoubling, kHierarchical };

const char* AlgoName(Algo a);

// One-shot while the bytes all ranks stage (N times the message) stay under
// this: every rank reads all of them, so the one-shot's saved synchronisation
// is outweighed by its N-fold reduction beyond a few KiB per rank
// (bench/history/RESULTS-2026.md, "Vectorised reduction kernels": at 2 ranks one-shot wins
// at 4 KiB, ties at 8 KiB, and direct is 1.13x faster at 16 KiB).
inline constexpr size_t kOneShotBytes = 16 << 10;

// With more ranks than cores, direct's two all-rank synchronisations per
// round wait for descheduled ranks; the ring, whose ranks only wait for a
// neighbour and can run ahead into its buffer, is as fast or faster above
// this (bench/history/RESULTS-2026.md, 4 ranks on 2 cores, and the trainer).
inline constexpr size_t kSharedDirectBytes = 256 << 10;

// Recursive doubling while the message is this small: log2(N) latencies
// instead of 2(N-1), worth more than moving the whole message at every step
// (docs/collectives.md: the crossover at 4 ranks is 8·α·B ≈ 60 KB over TCP).
inline constexpr size_t kDoublingBytes = 64 << 10;

struct GroupShape {
  int ranks = 1;
  int hosts = 1;
  bool one_host = false;        // every rank on this host, over shared memory
  bool oversubscribed = false;  // more local ranks than cores
};

// Checks a DLP_COMM_ALGO value against the group: "direct" and "oneshot"
// need every rank on one host with shared memory.
absl::Status CheckAlgo(const std::string& forced, const GroupShape& shape);

// Whether a group of this shape connects the recursive-doubling links, and
// the hierarchy (a host's shared-memory group, the leaders' ring).
bool NeedsDoubling(const GroupShape& shape, const std::string& forced);
bool NeedsHierarchy(const GroupShape& shape, const std::string& forced);

Algo ChooseAllreduce(const GroupShape& shape, size_t bytes, const std::string& forced = "auto");

// Reduce-scatter and allgather: direct wherever the shared-memory group is
// (one host, not forced to the ring), whatever the size or the core count.
// Unlike the direct allreduce they synchronise once per round, not twice, and
// where ranks share cores a round is a whole slot: a sharded trainer step
// (reduce-scatter, update, allgather) waits twice, where the ring hands the
// core over at every chunk (bench/history/RESULTS-2026.md, "Subnormals flushed, and a
// sharded optimizer"). The ring everywhere else.
Algo ChooseBlockCollective(const GroupShape& shape, const std::string& forced = "auto");

// Bytes per round of the direct algorithm: a few hundred KiB stay in the
// shared cache; when ranks share cores, a round is a slot, so that fewer
// rounds wait on a rank the scheduler has put aside.
size_t DirectChunkBytes(const GroupShape& shape);

}  // namespace dlp::runtime
