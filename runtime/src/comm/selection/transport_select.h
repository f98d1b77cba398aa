// Wiring a communicator: the one place that picks a transport per neighbour
// pair (shared memory within a host, TCP between hosts, or as forced by
// DLP_COMM_TRANSPORT) and the GPU path (NCCL or host staging, when built with
// CUDA).
#pragma once

#include <memory>

#include "comm/algorithms/doubling.h"
#include "comm/algorithms/ring.h"
#include "comm/core/comm_env.h"
#include "comm/transports/device_path.h"
#include "comm/transports/link.h"
#include "comm/transports/shm_group.h"
#include "rendezvous/store.h"

namespace dlp::runtime {

struct RingLinks {
  std::unique_ptr<SendLink> next;
  std::unique_ptr<RecvLink> prev;
  const char* send_kind = "none";  // "tcp" or "shm", for messages and tests
  const char* recv_kind = "none";
};

// Connects this rank to its ring neighbours through `store`. Every rank of the
// communicator must call it; errors name the rank or key that was missing.
absl::StatusOr<RingLinks> ConnectRing(const CommOptions& options, RendezvousStore& store);

// Where the ranks are: hosts in the order of their lowest rank, and this
// rank's place on its host. DLP_COMM_TRANSPORT=shm makes one host of all,
// =tcp one host per rank. Call after ConnectRing, which published the host ids.
struct HostLayout {
  int hosts = 1;
  int host = 0;        // this rank's host
  int local_rank = 0;  // among its host's ranks, in rank order
  int local_size = 1;
};
absl::StatusOr<HostLayout> ReadHostLayout(const CommOptions& options, RendezvousStore& store);

// Maps a segment of `lanes` lanes per rank, every rank's in every rank
// (shm_group.h). Every rank must call it. When a rank cannot reserve its
// segment (a small /dev/shm) and the group is `optional`, every rank gets
// null (they agree through the store); otherwise that rank's error.
absl::StatusOr<std::unique_ptr<ShmGroup>> ConnectShmGroup(const CommOptions& options,
                                                          RendezvousStore& store, int lanes,
                                                          bool oversubscribed, bool optional);

// The sub-communicator options of this rank's host (shared memory) and, for a
// host's lowest rank, of the leaders' ring: their own key prefixes.
CommOptions HostOptions(const CommOptions& options, const HostLayout& layout);
CommOptions LeaderOptions(const CommOptions& options, const HostLayout& layout);

// Connects a TCP socket (both directions) to each of DoublingPartners(rank,
// size). Every rank must call it.
absl::StatusOr<DoublingLinks> ConnectDoubling(const CommOptions& options,
                                              RendezvousStore& store);

// The GPU path, or null when the build has no CUDA or the machine no GPU.
// `store` may be null for a single rank.
// `host_ring` stays valid for the life of the result.
absl::StatusOr<std::unique_ptr<DevicePath>> MakeDevicePath(const CommOptions& options,
                                                           RendezvousStore* store,
                                                           const RingContext* host_ring);

}  // namespace dlp::runtime
