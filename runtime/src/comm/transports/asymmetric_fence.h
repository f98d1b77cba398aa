// A store-then-load handshake whose two sides run at very different rates.
// A publisher stores its flag and then looks whether a peer sleeps; a peer
// announces that it sleeps and then looks at the flag again. Each side needs a
// full fence between its store and its load, or both may miss the other's
// store and the sleeper is never woken. The publisher runs on every round of
// every collective, the sleeper only after its spin ran out, so the sleeper
// pays for both: membarrier(2) runs a full fence on every CPU that runs a
// registered process, and the publisher keeps only a compiler barrier
// (as liburcu and folly's asymmetric barriers do). Where the kernel has no
// membarrier, both sides fence as before.
#pragma once

#include <atomic>

namespace dlp::runtime {

// Registers this process (once) and says whether the light side may skip its
// fence. Every process of a group must have asked before any of them
// publishes with LightFence().
bool AsymmetricFenceAvailable();

// The publisher's side, between its store and its load: only when
// AsymmetricFenceAvailable().
inline void LightFence() { std::atomic_signal_fence(std::memory_order_seq_cst); }

// The sleeper's side, between its store and its load: afterwards, every store a
// registered process made before its load of the sleeper's store is visible.
void HeavyFence();

}  // namespace dlp::runtime
