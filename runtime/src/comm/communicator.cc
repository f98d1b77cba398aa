#include "comm/communicator.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "comm/algorithms/channels.h"
#include "comm/algorithms/direct.h"
#include "comm/algorithms/zero_copy.h"
#include "comm/core/dtype.h"
#include "comm/hierarchical.h"
#include "dlp/status.h"
#include "trace/clock_sync.h"
#include "trace/collective_span.h"
#include "trace/tracer.h"

namespace dlp::runtime {
namespace {

std::atomic<int> g_instances{0};
// How long a failing rank waits for a departed neighbour's recorded reason.
constexpr absl::Duration kReasonWait = absl::Seconds(1);

}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::FromEnv() {
  DLP_ASSIGN_OR_RETURN(CommEnv env, ReadCommEnv(g_instances.fetch_add(1)));
  if (env.store_host.empty()) {  // a single rank needs no rendezvous
    auto comm = std::unique_ptr<Communicator>(new Communicator());
    comm->options_ = env.options;
    DLP_RETURN_IF_ERROR(comm->Join());
    DLP_ASSIGN_OR_RETURN(comm->device_,
                         MakeDevicePath(comm->options_, nullptr, &comm->rings_.front()));
    return comm;
  }
  DLP_ASSIGN_OR_RETURN(auto store,
                       ConnectTcpStore(env.store_host, env.store_port, env.options.secret,
                                       env.options.timeout));
  return Create(env.options, std::shared_ptr<RendezvousStore>(std::move(store)));
}

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Create(
    const CommOptions& options, std::shared_ptr<RendezvousStore> store) {
  if (options.size < 1 || options.rank < 0 || options.rank >= options.size) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank ", options.rank, " is not within size ", options.size));
  }
  auto comm = std::unique_ptr<Communicator>(new Communicator());
  comm->options_ = options;
  comm->store_ = store;
  if (store == nullptr && options.size > 1) {
    return absl::InvalidArgumentError("a communicator of several ranks needs a store");
  }
  const int64_t rendezvous_start = trace::NowNs();
  absl::Status joined = comm->Join();
  trace::Complete("rendezvous", "comm", rendezvous_start, trace::NowNs());
  if (!joined.ok()) {
    return absl::Status(joined.code(), absl::StrCat("dlp comm: rank ", options.rank,
                                                    " could not join: ", joined.message()));
  }
  DLP_ASSIGN_OR_RETURN(comm->device_,
                       MakeDevicePath(comm->options_, store.get(), &comm->rings_.front()));
  // Only when tracing; a failed estimate leaves the trace without an offset.
  if (store != nullptr) {
    (void)trace::SyncClocks(*store, options.key_prefix, options.rank, options.size);
  }
  return comm;
}

// Connects channel 0, agrees on the number of channels, connects the rest.
absl::Status Communicator::Join() {
  const CommOptions& o = options_;
  shape_.ranks = o.size;
  if (o.size == 1) {
    rings_ = {{0, 1, nullptr, nullptr, o.timeout}};
    return CheckAlgo(o.algo, shape_);
  }
  DLP_ASSIGN_OR_RETURN(RingLinks first, ConnectRing(o, *store_));
  const bool on_host =
      std::string(first.send_kind) == "shm" && std::string(first.recv_kind) == "shm";
  DLP_ASSIGN_OR_RETURN(int channels, AgreeOnChannels(o, *store_, ChannelWish(o, on_host)));
  links_.push_back(std::move(first));
  for (int k = 1; k < channels; ++k) {
    CommOptions channel = o;
    channel.key_prefix = ChannelPrefix(o, k);
    DLP_ASSIGN_OR_RETURN(RingLinks more, ConnectRing(channel, *store_));
    links_.push_back(std::move(more));
  }
  DLP_ASSIGN_OR_RETURN(HostLayout layout, ReadHostLayout(o, *store_));
  shape_.hosts = layout.hosts;
  shape_.one_host = layout.hosts == 1;
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  shape_.oversubscribed = cores > 0 && std::max(o.local_size, layout.local_size) > cores;
  DLP_RETURN_IF_ERROR(CheckAlgo(o.algo, shape_));
  for (RingLinks& l : links_) {
    rings_.push_back(
        {o.rank, o.size, l.next.get(), l.prev.get(), o.timeout, shape_.oversubscribed});
  }
  if (shape_.one_host && o.algo != "ring") {
    // Optional unless forced: without it the ring runs (AllreduceAlgo).
    const bool forced = o.algo == "direct" || o.algo == "oneshot";
    DLP_ASSIGN_OR_RETURN(group_,
                         ConnectShmGroup(o, *store_, channels, shape_.oversubscribed, !forced));
  }
  if (NeedsHierarchy(shape_, o.algo)) DLP_RETURN_IF_ERROR(JoinHierarchy(layout));
  if (NeedsDoubling(shape_, o.algo)) {
    DLP_ASSIGN_OR_RETURN(DoublingLinks pairs, ConnectDoubling(o, *store_));
    doubling_ = std::make_unique<DoublingLinks>(std::move(pairs));
  }
  return absl::OkStatus();
}

// A shared-memory group of this host's ranks; its lowest rank also joins the
// leaders' ring.
absl::Status Communicator::JoinHierarchy(const HostLayout& layout) {
  const CommOptions& o = options_;
  auto h = std::make_unique<Hierarchy>();
  h->size = o.size;
  h->local_shape = {layout.local_size, 1, true, shape_.oversubscribed};
  DLP_ASSIGN_OR_RETURN(h->local,
                       ConnectShmGroup(HostOptions(o, layout), *store_, Hierarchy::kLanes, shape_.oversubscribed,
                      /*optional=*/false));
  if (layout.local_rank == 0) {
    DLP_ASSIGN_OR_RETURN(h->leader_links, ConnectRing(LeaderOptions(o, layout), *store_));
    h->leaders = {layout.host, layout.hosts, h->leader_links.next.get(), h->leader_links.prev.get(),
                  o.timeout};
  }
  hierarchy_ = std::move(h);
  return absl::OkStatus();
}

void Communicator::AbandonLinks() {
  if (group_) group_->Abandon();
  if (hierarchy_) {
    hierarchy_->local->Abandon();
    if (hierarchy_->leader_links.next) hierarchy_->leader_links.next->Abandon();
    if (hierarchy_->leader_links.prev) hierarchy_->leader_links.prev->Abandon();
  }
  if (doubling_) {
    for (auto& [peer, link] : doubling_->partners) {
      link.send->Abandon();
      link.recv->Abandon();
    }
  }
  for (RingLinks& l : links_) {
    if (l.next) l.next->Abandon();
    if (l.prev) l.prev->Abandon();
  }
}

Communicator::~Communicator() {
  device_.reset();
  AbandonLinks();
}

absl::Status Communicator::Check(dlp_dtype t, const void* a, const void* b, size_t count) const {
  if (!broken_.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("communicator is unusable after an earlier error: ", broken_.message()));
  }
  if (!IsValidDType(t)) return absl::InvalidArgumentError(absl::StrCat("unknown dtype ", t));
  if (count > 0 && (a == nullptr || b == nullptr)) {
    return absl::InvalidArgumentError("null buffer");
  }
  return absl::OkStatus();
}

std::string Communicator::FailureKey(int rank) const {
  return absl::StrCat(options_.key_prefix, "/failed/", rank);
}

// A failed collective breaks the communicator: record why in the store, leave
// the ring so the neighbours fail fast, and when the failure was a neighbour
// leaving, add the reason that neighbour recorded (so the rank that died
// first is named all around the ring).
absl::Status Communicator::Remember(absl::Status s) {
  if (s.ok() || absl::IsInvalidArgument(s)) return s;
  if (store_ != nullptr) (void)store_->Set(FailureKey(rank()), std::string(s.message()));
  AbandonLinks();
  auto peer = s.GetPayload(kPeerPayload);
  int peer_rank = -1;
  bool departed = s.message().find("left the communicator") != absl::string_view::npos ||
                  s.message().find("closed the connection") != absl::string_view::npos;
  if (store_ != nullptr && departed && peer && absl::SimpleAtoi(std::string(*peer), &peer_rank)) {
    auto reason = store_->Get(FailureKey(peer_rank), kReasonWait);
    if (reason.ok()) {
      s = absl::Status(s.code(), absl::StrCat(s.message(), " (rank ", peer_rank, ": ", *reason, ")"));
    }
  }
  broken_ = s;
  return s;
}

absl::StatusOr<size_t> Communicator::AllBlocksBytes(size_t count_per_rank, dlp_dtype t) const {
  const size_t elem = DTypeSize(t), ranks = static_cast<size_t>(size());
  if (count_per_rank > SIZE_MAX / elem / ranks) {
    return absl::InvalidArgumentError(absl::StrCat(
        count_per_rank, " elements per rank overflow the address space with ", ranks, " ranks"));
  }
  return count_per_rank * elem * ranks;
}

bool Communicator::BlocksDirect() const {
  return group_ != nullptr && ChooseBlockCollective(shape_, options_.algo) == Algo::kDirect;
}

DevicePath* Communicator::DeviceFor(const void* a, const void* b) const {
  if (device_ == nullptr) return nullptr;
  return device_->IsDevice(a) || device_->IsDevice(b) ? device_.get() : nullptr;
}

absl::Status Communicator::Allreduce(const void* send, void* recv, size_t count, dlp_dtype t,
                                     dlp_op op) {
  DLP_RETURN_IF_ERROR(Check(t, send, recv, count));
  if (!IsValidOp(op)) return absl::InvalidArgumentError(absl::StrCat("unknown op ", op));
  if (count == 0) return absl::OkStatus();
  const size_t bytes = count * DTypeSize(t);
  Algo algo = AllreduceAlgo(bytes);
  // Measured unless forced, except where every candidate would go zero-copy alike.
  if (DeviceFor(send, recv) == nullptr && group_ != nullptr && options_.algo == "auto" &&
      AllreduceTuner::Tunes(algo) && !MayGoZeroCopy(bytes)) {
    absl::StatusOr<AllreduceTuner::Pick> pick = tuner_.Next(*group_, bytes);
    if (!pick.ok()) return Remember(pick.status());
    if (pick->timed) {
      const absl::Time start = absl::Now();
      absl::Status s = RunAllreduce(pick->algo, send, recv, count, t, op);
      tuner_.Record(bytes, pick->algo, absl::Now() - start);
      return s;
    }
    algo = pick->algo;
  }
  return RunAllreduce(algo, send, recv, count, t, op);
}

absl::Status Communicator::RunAllreduce(Algo algo, const void* send, void* recv, size_t count,
                                        dlp_dtype t, dlp_op op) {
  DevicePath* d = DeviceFor(send, recv);
  const size_t bytes = count * DTypeSize(t);
  trace::CollectiveSpan span("allreduce", bytes, DTypeName(t), OpName(op),
                             d ? d->name() : AlgoName(algo), size());
  if (d) return Remember(d->Allreduce(send, recv, count, t, op));
  if (hierarchy_ != nullptr && algo == Algo::kHierarchical) {
    return Remember(HierarchicalAllreduce(*hierarchy_, send, recv, count, t, op));
  }
  if (doubling_ != nullptr && algo == Algo::kDoubling) {
    return Remember(DoublingAllreduce(*doubling_, send, recv, count, t, op));
  }
  if (group_ != nullptr && algo == Algo::kOneShot) {
    return Remember(OneShotAllreduce(*group_, send, recv, count, t, op));
  }
  // Every rank decides alike: the windows, the size and the algorithm are the same everywhere.
  if (MayGoZeroCopy(bytes) && (algo == Algo::kDirect || algo == Algo::kRing)) {
    ZeroCopyRun run;
    absl::Status s =
        ZeroCopyAllreduce(*group_, shared_, channels(), send, recv, count, t, op, &run);
    if (run.ran) {
      ++zero_copy_allreduces_;
      zero_copy_threads_ = run.threads;
      span.set_algorithm("zero-copy");
    }
    if (!s.ok() || run.ran) return Remember(s);
  }
  if (group_ != nullptr && algo == Algo::kDirect) {
    return Remember(
        LanedDirectAllreduce(*group_, send, recv, count, t, op, DirectChunkBytes(shape_)));
  }
  return Remember(ChanneledAllreduce(rings_, send, recv, count, t, op));
}

absl::Status Communicator::Broadcast(void* buf, size_t count, dlp_dtype t, int root) {
  DLP_RETURN_IF_ERROR(Check(t, buf, buf, count));
  if (root < 0 || root >= size()) {
    return absl::InvalidArgumentError(absl::StrCat("root ", root, " is not a rank"));
  }
  if (count == 0) return absl::OkStatus();
  DevicePath* d = DeviceFor(buf, buf);
  trace::CollectiveSpan span("broadcast", count * DTypeSize(t), DTypeName(t), "",
                             d ? d->name() : "ring", size());
  if (d) return Remember(d->Broadcast(buf, count, t, root));
  return Remember(RingBroadcast(rings_.front(), buf, count, t, root));
}

absl::Status Communicator::Allgather(const void* send, void* recv, size_t count_per_rank,
                                     dlp_dtype t) {
  DLP_RETURN_IF_ERROR(Check(t, send, recv, count_per_rank));
  if (count_per_rank == 0) return absl::OkStatus();
  DLP_ASSIGN_OR_RETURN(const size_t bytes, AllBlocksBytes(count_per_rank, t));
  DevicePath* d = DeviceFor(send, recv);
  const bool direct = BlocksDirect();
  trace::CollectiveSpan span("allgather", bytes, DTypeName(t), "",
                             d ? d->name() : (direct ? "direct" : "ring"), size());
  if (d) return Remember(d->Allgather(send, recv, count_per_rank, t));
  if (direct) {
    return Remember(
        LanedDirectAllgather(*group_, send, recv, count_per_rank, t, DirectChunkBytes(shape_)));
  }
  return Remember(RingAllgather(rings_.front(), send, recv, count_per_rank, t));
}

absl::Status Communicator::ReduceScatter(const void* send, void* recv, size_t count_per_rank,
                                         dlp_dtype t, dlp_op op) {
  DLP_RETURN_IF_ERROR(Check(t, send, recv, count_per_rank));
  if (!IsValidOp(op)) return absl::InvalidArgumentError(absl::StrCat("unknown op ", op));
  if (count_per_rank == 0) return absl::OkStatus();
  DLP_ASSIGN_OR_RETURN(const size_t bytes, AllBlocksBytes(count_per_rank, t));
  const size_t elem = DTypeSize(t), ranks = static_cast<size_t>(size());
  DevicePath* d = DeviceFor(send, recv);
  const bool direct = BlocksDirect();
  trace::CollectiveSpan span("reduce_scatter", bytes, DTypeName(t), OpName(op),
                             d ? d->name() : (direct ? "direct" : "ring"), size());
  if (d) return Remember(d->ReduceScatter(send, recv, count_per_rank, t, op));
  if (direct) {
    return Remember(LanedDirectReduceScatter(*group_, send, recv, count_per_rank, t, op,
                                             DirectChunkBytes(shape_)));
  }
  if (partial_sums_.size() < bytes) partial_sums_.resize(bytes);
  // An element of a block stands for the `ranks` elements a channel moves for it.
  return Remember(SplitOverChannels(
      count_per_rank, elem * ranks, channels(), [&](int k, size_t begin, size_t end) {
        return RingReduceScatter(rings_[static_cast<size_t>(k)],
                                 static_cast<const char*>(send) + begin * elem,
                                 static_cast<char*>(recv) + begin * elem, end - begin,
                                 count_per_rank, t, op, partial_sums_.data() + begin * elem);
      }));
}

absl::Status Communicator::Barrier() {
  // One element around the whole ring: no rank returns before every rank entered.
  int32_t token = 0;
  DLP_RETURN_IF_ERROR(Check(DLP_INT32, &token, &token, 1));
  trace::CollectiveSpan span("barrier", 0, "int32", "", group_ ? "direct" : "ring", size());
  if (group_ != nullptr) return Remember(GroupBarrier(*group_));
  return Remember(RingAllreduce(rings_.front(), &token, &token, 1, DLP_INT32, DLP_SUM));
}

absl::StatusOr<std::shared_ptr<SharedWindow>> Communicator::AllocateShared(size_t bytes) {
  DLP_RETURN_IF_ERROR(Check(DLP_INT32, nullptr, nullptr, 0));
  if (size() > 1 && !shape_.one_host) {
    return absl::FailedPreconditionError(
        absl::StrCat("shared memory needs every rank on one host; these ", size(), " ranks are on ",
                     shape_.hosts, " hosts (DLP_HOST_ID, DLP_COMM_TRANSPORT)"));
  }
  DLP_ASSIGN_OR_RETURN(
      std::shared_ptr<SharedWindow> window,
      SharedWindow::Create(options_, store_.get(), absl::StrCat(windows_++), bytes));
  shared_.Add(window);
  return window;
}

}  // namespace dlp::runtime
