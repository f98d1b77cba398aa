// Channels: parallel rings over the same ranks. A large allreduce is cut into
// one contiguous part per channel and each part runs its own ring in its own
// thread, so that a rank can use more than one core's worth of memory
// bandwidth when the host has cores to spare. Every rank must use the same
// number of channels; they agree on it through the store at setup.
#pragma once

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "comm/algorithms/ring.h"
#include "comm/core/comm_env.h"
#include "rendezvous/store.h"

namespace dlp::runtime {

// How many channels this rank would like: DLP_COMM_CHANNELS when set;
// otherwise, when both neighbours share its host, its cores per local rank
// (at most 4); otherwise 1, since a TCP link gains nothing from a second ring.
int ChannelWish(const CommOptions& options, bool neighbours_on_host);

// The smallest wish of all ranks (every rank must call it).
absl::StatusOr<int> AgreeOnChannels(const CommOptions& options, RendezvousStore& store, int wish);

// The key prefix of channel `k`'s links (channel 0 keeps the communicator's).
std::string ChannelPrefix(const CommOptions& options, int k);

// Runs part(k, begin, end) for k < parts on its own thread (k = 0 on the
// caller's), where [begin, end) is the k-th contiguous part of `count`
// elements; parts = count·elem / 512 KiB, between 1 and `channels`. Returns the
// first error.
absl::Status SplitOverChannels(
    size_t count, size_t elem, int channels,
    const std::function<absl::Status(int k, size_t begin, size_t end)>& part);

// RingAllreduce over rings[0..], one contiguous part of the buffer each; parts
// are at least a few hundred KiB, so small buffers use the first ring only.
absl::Status ChanneledAllreduce(const std::vector<RingContext>& rings, const void* send,
                                void* recv, size_t count, dlp_dtype t, dlp_op op);

}  // namespace dlp::runtime
