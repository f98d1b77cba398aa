// The C++ communicator behind dlp/comm.h: a fixed group of ranks joined in a
// ring, running allreduce, reduce-scatter, broadcast, allgather and barrier
// over it.
//
// Thread safety: one thread at a time per communicator (like MPI and NCCL
// communicators); distinct communicators are independent. Every rank must
// call the same collectives in the same order with matching arguments.
// A failed collective (a peer died, DLP_COMM_TIMEOUT passed without
// progress) leaves the communicator broken: later calls fail at once.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "comm/algorithms/ring.h"
#include "comm/algorithms/zero_copy.h"
#include "comm/core/comm_env.h"
#include "comm/hierarchical.h"
#include "comm/selection/algo_select.h"
#include "comm/selection/allreduce_tuner.h"
#include "comm/selection/transport_select.h"
#include "comm/transports/device_path.h"
#include "comm/transports/shared_window.h"
#include "comm/transports/shm_group.h"
#include "dlp/comm.h"
#include "rendezvous/store.h"

namespace dlp::runtime {

class Communicator {
 public:
  // Joins the ranks described by the rank environment (comm_env.h).
  static absl::StatusOr<std::unique_ptr<Communicator>> FromEnv();
  // Joins through `store`, kept to report and look up why ranks failed.
  static absl::StatusOr<std::unique_ptr<Communicator>> Create(
      const CommOptions& options, std::shared_ptr<RendezvousStore> store);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return options_.rank; }
  int size() const { return options_.size; }
  // "tcp" or "shm" (or "none" for one rank): the transport to the neighbour it sends to.
  const char* send_transport() const { return links_.empty() ? "none" : links_[0].send_kind; }
  // Parallel rings that large allreduces are split over.
  int channels() const { return static_cast<int>(rings_.size()); }
  // The algorithm the table (algo_select.h) gives a host allreduce of `bytes`;
  // on one host, unless forced, measuring then decides among one-shot,
  // direct and the ring (allreduce_tuner.h). Without the shared-memory group
  // (no room in /dev/shm) the ring runs instead.
  Algo AllreduceAlgo(size_t bytes) const {
    Algo a = ChooseAllreduce(shape_, bytes, options_.algo);
    return (a == Algo::kDirect || a == Algo::kOneShot) && group_ == nullptr ? Algo::kRing : a;
  }
  // "nccl", "staging" or "none": how GPU buffers are handled.
  const char* device_path() const { return device_ ? device_->name() : "none"; }

  // send == recv is in place. Host or (with CUDA) device buffers.
  absl::Status Allreduce(const void* send, void* recv, size_t count, dlp_dtype t, dlp_op op);
  absl::Status Broadcast(void* buf, size_t count, dlp_dtype t, int root);
  absl::Status Allgather(const void* send, void* recv, size_t count_per_rank, dlp_dtype t);
  // send holds size() blocks of count_per_rank; recv gets this rank's block
  // reduced over the ranks. recv may be send + rank() * count_per_rank.
  absl::Status ReduceScatter(const void* send, void* recv, size_t count_per_rank, dlp_dtype t,
                             dlp_op op);
  absl::Status Barrier();
  // Shared memory of `bytes` for this rank, mapped by every rank
  // (shared_window.h). Every rank must call it, in the same order as the
  // collectives. FailedPrecondition unless every rank is on this host.
  // An allreduce whose buffers lie in such windows on every rank copies
  // nothing (zero_copy.h); the windows stay mapped until the communicator goes.
  absl::StatusOr<std::shared_ptr<SharedWindow>> AllocateShared(size_t bytes);
  // How many allreduces went zero-copy so far.
  int64_t zero_copy_allreduces() const { return zero_copy_allreduces_; }
  // The threads this rank reduced on in the last one (0: it claimed no blocks).
  int zero_copy_threads() const { return zero_copy_threads_; }

 private:
  Communicator() = default;
  absl::Status Join();
  absl::Status JoinHierarchy(const HostLayout& layout);
  absl::Status Check(dlp_dtype t, const void* a, const void* b, size_t count) const;
  absl::Status Remember(absl::Status s);
  std::string FailureKey(int rank) const;
  DevicePath* DeviceFor(const void* a, const void* b) const;
  // The bytes of size() blocks (InvalidArgument when they overflow).
  absl::StatusOr<size_t> AllBlocksBytes(size_t count_per_rank, dlp_dtype t) const;
  // Whether an allreduce of `bytes` first asks if every rank's buffers lie in
  // shared windows (zero_copy.h).
  bool MayGoZeroCopy(size_t bytes) const {
    return group_ != nullptr && shared_.size() > 0 && bytes >= kZeroCopyMinBytes;
  }
  // The allreduce as `algo` (or the device path) runs it.
  absl::Status RunAllreduce(Algo algo, const void* send, void* recv, size_t count, dlp_dtype t,
                            dlp_op op);
  // Whether reduce-scatter and allgather go straight through the
  // shared-memory group (algo_select.h).
  bool BlocksDirect() const;

  // Leaves every channel's ring, so that the neighbours fail fast.
  void AbandonLinks();

  CommOptions options_;
  std::vector<RingLinks> links_;  // one per channel (see channels.h)
  // All channels; the first carries every collective but large allreduces
  // (and the staging path's, which keeps a pointer to it: set once, in Join).
  std::vector<RingContext> rings_;
  GroupShape shape_;
  // Every rank's segment, when all ranks share this host (and ring is not forced).
  std::unique_ptr<ShmGroup> group_;
  // The one-host algorithm of each size class, measured unless one is forced.
  AllreduceTuner tuner_;
  // Pairwise TCP links for small allreduces of groups that span hosts.
  std::unique_ptr<DoublingLinks> doubling_;
  // A host's group and the leaders' ring, for groups spanning hosts with
  // several ranks on a host.
  std::unique_ptr<Hierarchy> hierarchy_;
  std::unique_ptr<DevicePath> device_;
  std::shared_ptr<RendezvousStore> store_;
  std::vector<char> partial_sums_;  // the ring reduce-scatter's, kept between calls
  int windows_ = 0;                 // shared windows asked for, for their rendezvous keys
  WindowRegistry shared_;           // the ones made
  int64_t zero_copy_allreduces_ = 0;
  int zero_copy_threads_ = 0;
  absl::Status broken_;
};

}  // namespace dlp::runtime
