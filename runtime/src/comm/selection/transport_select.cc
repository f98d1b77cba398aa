// Picks and connects the transports. The rendezvous keys, under the
// communicator's prefix:
//   host/<r>            DLP_HOST_ID of rank r (phase 1: who shares a host)
//   tcp/<r>             host:port where rank r accepts its previous rank
//   shm/<r>             name of rank r's shared-memory segment
//   mapped/<r>/<by>     rank <by> has mapped r's segment; r then unlinks it
//   group/<r>           name of rank r's shared-memory group segment
//   group-mapped/<r>    rank r has mapped every group segment
//   pair/<r>            host:port where rank r accepts its recursive-doubling partners
#include "comm/selection/transport_select.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "comm/transports/link_handshake.h"
#include "comm/transports/shm_link.h"
#include "comm/transports/tcp_link.h"
#include "common/socket.h"
#include "dlp/status.h"
#include "dlp_build_config.h"
#if DLP_HAVE_CUDA
#include <set>

#include "comm/algorithms/staging_path.h"
#include "comm/transports/cuda_path.h"
#endif

namespace dlp::runtime {
namespace {

bool UseShm(const CommOptions& o, const std::string& a, const std::string& b) {
  if (o.transport == "shm") return true;
  if (o.transport == "tcp") return false;
  return a == b;
}

class Rendezvous {
 public:
  Rendezvous(const CommOptions& o, RendezvousStore& store) : o_(o), store_(store) {}
  std::string Key(const std::string& what, int r) const {
    return absl::StrCat(o_.key_prefix, "/", what, "/", r);
  }
  absl::Status Set(const std::string& what, const std::string& value) {
    return store_.Set(Key(what, o_.rank), value);
  }
  absl::StatusOr<std::string> Get(const std::string& what, int r) {
    return store_.Get(Key(what, r), o_.timeout);
  }
  RendezvousStore& store() { return store_; }

 private:
  const CommOptions& o_;
  RendezvousStore& store_;
};

// A timeout while accepting names the rank that did not come.
absl::Status NotConnected(const CommOptions& o, const absl::Status& s, int peer) {
  if (!absl::IsDeadlineExceeded(s)) return s;
  return absl::DeadlineExceededError(
      absl::StrCat("rank ", peer, " did not connect within ", absl::FormatDuration(o.timeout)));
}

}  // namespace

absl::StatusOr<RingLinks> ConnectRing(const CommOptions& o, RendezvousStore& store) {
  RingLinks links;
  if (o.size == 1) return links;
  const int next = (o.rank + 1) % o.size, prev = (o.rank + o.size - 1) % o.size;
  Rendezvous rdzv(o, store);

  DLP_RETURN_IF_ERROR(rdzv.Set("host", o.host_id));
  DLP_ASSIGN_OR_RETURN(std::string next_host, rdzv.Get("host", next));
  DLP_ASSIGN_OR_RETURN(std::string prev_host, rdzv.Get("host", prev));
  const bool send_shm = UseShm(o, o.host_id, next_host);
  const bool recv_shm = UseShm(o, prev_host, o.host_id);

  Fd listener;
  if (!recv_shm) {
    DLP_ASSIGN_OR_RETURN(listener, ListenTcp(o.advertise_host, 0));
    DLP_ASSIGN_OR_RETURN(int port, BoundPort(listener.get()));
    std::string host = o.advertise_host;
    if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
    DLP_RETURN_IF_ERROR(rdzv.Set("tcp", absl::StrCat(host, ":", port)));
  }
  std::shared_ptr<ShmSegment> own;
  if (send_shm || recv_shm) {
    DLP_ASSIGN_OR_RETURN(own, ShmSegment::Create(NewShmName(o.rank), o.rank));
    own->TouchPages();  // this rank reads its ring
    DLP_RETURN_IF_ERROR(rdzv.Set("shm", own->name()));
  }

  // Outgoing side first: connect() completes against the peer's backlog.
  const absl::Time deadline = absl::Now() + o.timeout;
  std::optional<OutgoingLink> to_next;
  std::shared_ptr<ShmSegment> next_seg;
  if (send_shm) {
    DLP_ASSIGN_OR_RETURN(std::string name, rdzv.Get("shm", next));
    DLP_ASSIGN_OR_RETURN(auto seg, ShmSegment::Open(name, next));
    seg->TouchPages();  // and writes the next rank's
    next_seg = seg;
    DLP_RETURN_IF_ERROR(store.Set(absl::StrCat(rdzv.Key("mapped", next), "/", o.rank), ""));
    links.next = MakeShmSendLink(own, seg, next);
    links.send_kind = "shm";
  } else {
    DLP_ASSIGN_OR_RETURN(std::string addr, rdzv.Get("tcp", next));
    DLP_ASSIGN_OR_RETURN(to_next, OutgoingLink::Connect(o, addr, next, deadline));
  }
  if (recv_shm && next_seg != nullptr && prev == next) {
    links.prev = MakeShmRecvLink(own, next_seg, prev);  // two ranks: one segment each way
    links.recv_kind = "shm";
  } else if (recv_shm) {
    DLP_ASSIGN_OR_RETURN(std::string name, rdzv.Get("shm", prev));
    DLP_ASSIGN_OR_RETURN(auto seg, ShmSegment::Open(name, prev));
    DLP_RETURN_IF_ERROR(store.Set(absl::StrCat(rdzv.Key("mapped", prev), "/", o.rank), ""));
    links.prev = MakeShmRecvLink(own, seg, prev);
    links.recv_kind = "shm";
  }
  // The TCP links prove the job's secret in the steps of link_handshake.h.
  IncomingLinks from_prev(o, listener.get(), recv_shm ? 0 : 1);
  DLP_RETURN_IF_ERROR(NotConnected(o, from_prev.AcceptAll(deadline), prev));
  if (to_next) DLP_RETURN_IF_ERROR(to_next->Answer(deadline));
  auto accepted = from_prev.Finish(deadline);
  DLP_RETURN_IF_ERROR(NotConnected(o, accepted.status(), prev));
  if (!recv_shm) {
    if ((*accepted)[0].second != prev) {
      return absl::FailedPreconditionError(absl::StrCat("expected a connection from rank ", prev,
                                                        ", got rank ", (*accepted)[0].second));
    }
    links.prev = MakeTcpRecvLink(std::move((*accepted)[0].first), prev);
    links.recv_kind = "tcp";
  }
  if (to_next) {
    DLP_ASSIGN_OR_RETURN(Fd fd, to_next->Finish(deadline));
    links.next = MakeTcpSendLink(std::move(fd), next);
    links.send_kind = "tcp";
  }

  if (own != nullptr) {
    // Once the neighbours have mapped the segment its name can go: nothing is
    // left in /dev/shm even if a rank is killed later.
    std::vector<std::string> mapped;
    if (send_shm) mapped.push_back(absl::StrCat(rdzv.Key("mapped", o.rank), "/", next));
    if (recv_shm) mapped.push_back(absl::StrCat(rdzv.Key("mapped", o.rank), "/", prev));
    DLP_RETURN_IF_ERROR(store.Wait(mapped, o.timeout));
    own->Unlink();
  }
  return links;
}

absl::StatusOr<HostLayout> ReadHostLayout(const CommOptions& o, RendezvousStore& store) {
  HostLayout layout;
  if (o.transport == "shm" || o.size == 1) {
    layout.local_rank = o.rank;
    layout.local_size = o.size;
    return layout;
  }
  if (o.transport == "tcp") {
    layout.hosts = o.size;
    layout.host = o.rank;
    return layout;
  }
  Rendezvous rdzv(o, store);
  std::vector<std::string> hosts;
  layout.local_size = 0;
  for (int r = 0; r < o.size; ++r) {
    DLP_ASSIGN_OR_RETURN(std::string host, rdzv.Get("host", r));
    auto it = std::find(hosts.begin(), hosts.end(), host);
    if (it == hosts.end()) it = hosts.insert(hosts.end(), host);
    if (host != o.host_id) continue;
    if (r == o.rank) layout.local_rank = layout.local_size;
    ++layout.local_size;
    layout.host = static_cast<int>(it - hosts.begin());
  }
  layout.hosts = static_cast<int>(hosts.size());
  return layout;
}

CommOptions HostOptions(const CommOptions& o, const HostLayout& layout) {
  CommOptions local = o;
  local.rank = layout.local_rank;
  local.size = layout.local_size;
  local.transport = "shm";
  local.key_prefix = absl::StrCat(o.key_prefix, "/host", layout.host);
  return local;
}

CommOptions LeaderOptions(const CommOptions& o, const HostLayout& layout) {
  CommOptions leaders = o;
  leaders.rank = layout.host;
  leaders.size = layout.hosts;
  leaders.key_prefix = absl::StrCat(o.key_prefix, "/leaders");
  return leaders;
}

absl::StatusOr<std::unique_ptr<ShmGroup>> ConnectShmGroup(const CommOptions& o,
                                                          RendezvousStore& store, int lanes,
                                                          bool oversubscribed, bool optional) {
  Rendezvous rdzv(o, store);
  const size_t bytes = ShmGroup::SegmentBytes(lanes);
  std::vector<std::shared_ptr<ShmSegment>> segments(static_cast<size_t>(o.size));
  auto own = ShmSegment::Create(NewShmName(o.rank), o.rank, bytes);
  // An empty name: this rank could not reserve its segment; then none uses the group.
  DLP_RETURN_IF_ERROR(rdzv.Set("group", own.ok() ? (*own)->name() : ""));
  if (!own.ok() && !optional) return own.status();
  std::vector<std::string> names(static_cast<size_t>(o.size));
  for (int r = 0; r < o.size; ++r) {
    DLP_ASSIGN_OR_RETURN(names[static_cast<size_t>(r)], rdzv.Get("group", r));
    if (!names[static_cast<size_t>(r)].empty()) continue;
    if (optional) return std::unique_ptr<ShmGroup>();
    return absl::ResourceExhaustedError(
        absl::StrCat("rank ", r, " could not reserve its shared memory (is /dev/shm full?)"));
  }
  segments[static_cast<size_t>(o.rank)] = *own;
  std::vector<std::string> mapped;
  for (int r = 0; r < o.size; ++r) {
    mapped.push_back(rdzv.Key("group-mapped", r));
    if (r == o.rank) continue;
    DLP_ASSIGN_OR_RETURN(segments[static_cast<size_t>(r)],
                         ShmSegment::Open(names[static_cast<size_t>(r)], r, bytes));
  }
  DLP_RETURN_IF_ERROR(rdzv.Set("group-mapped", ""));
  // As for the ring's segments: once everyone mapped it, the name can go.
  DLP_RETURN_IF_ERROR(store.Wait(mapped, o.timeout));
  segments[static_cast<size_t>(o.rank)]->Unlink();
  return std::make_unique<ShmGroup>(o.rank, lanes, std::move(segments), o.timeout, oversubscribed);
}

absl::StatusOr<DoublingLinks> ConnectDoubling(const CommOptions& o, RendezvousStore& store) {
  Rendezvous rdzv(o, store);
  DoublingLinks links;
  links.rank = o.rank;
  links.size = o.size;
  links.timeout = o.timeout;
  const std::vector<int> partners = DoublingPartners(o.rank, o.size);
  std::set<int> higher;
  for (int p : partners) {
    if (p > o.rank) higher.insert(p);
  }
  Fd listener;
  if (!higher.empty()) {
    DLP_ASSIGN_OR_RETURN(listener, ListenTcp(o.advertise_host, 0));
    DLP_ASSIGN_OR_RETURN(int port, BoundPort(listener.get()));
    std::string host = o.advertise_host;
    if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
    DLP_RETURN_IF_ERROR(rdzv.Set("pair", absl::StrCat(host, ":", port)));
  }
  auto add = [&](int peer, Fd fd) -> absl::Status {
    int second = dup(fd.get());
    if (second < 0) return ErrnoStatus("dup", errno);
    links.partners[peer] = {MakeTcpSendLink(std::move(fd), peer), MakeTcpRecvLink(Fd(second), peer)};
    return absl::OkStatus();
  };
  // Lower partners first: connect() completes against their backlog. Then the
  // links prove the job's secret in the steps of link_handshake.h.
  const absl::Time deadline = absl::Now() + o.timeout;
  std::vector<OutgoingLink> lower;
  for (int p : partners) {
    if (p > o.rank) continue;
    DLP_ASSIGN_OR_RETURN(std::string addr, rdzv.Get("pair", p));
    DLP_ASSIGN_OR_RETURN(OutgoingLink link, OutgoingLink::Connect(o, addr, p, deadline));
    lower.push_back(std::move(link));
  }
  IncomingLinks from_higher(o, listener.get(), static_cast<int>(higher.size()));
  const int first_higher = higher.empty() ? -1 : *higher.begin();
  DLP_RETURN_IF_ERROR(NotConnected(o, from_higher.AcceptAll(deadline), first_higher));
  for (OutgoingLink& link : lower) DLP_RETURN_IF_ERROR(link.Answer(deadline));
  auto accepted = from_higher.Finish(deadline);
  DLP_RETURN_IF_ERROR(NotConnected(o, accepted.status(), first_higher));
  for (auto& [fd, peer] : *accepted) {
    if (higher.erase(peer) == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("rank ", peer, " connected for recursive doubling, not a partner"));
    }
    DLP_RETURN_IF_ERROR(add(peer, std::move(fd)));
  }
  for (OutgoingLink& link : lower) {
    DLP_ASSIGN_OR_RETURN(Fd fd, link.Finish(deadline));
    DLP_RETURN_IF_ERROR(add(link.peer(), std::move(fd)));
  }
  return links;
}

absl::StatusOr<std::unique_ptr<DevicePath>> MakeDevicePath(const CommOptions& options,
                                                           RendezvousStore* store,
                                                           const RingContext* host_ring) {
#if DLP_HAVE_CUDA
  if (CudaDeviceCount() == 0) return std::unique_ptr<DevicePath>();
#if DLP_HAVE_NCCL
  // NCCL takes one rank per GPU: use it only when no two ranks share one.
  bool distinct = true;
  if (options.size > 1) {
    DLP_ASSIGN_OR_RETURN(std::string uuid, CurrentCudaDeviceUuid());
    std::string prefix = absl::StrCat(options.key_prefix, "/gpu/");
    DLP_RETURN_IF_ERROR(store->Set(absl::StrCat(prefix, options.rank), options.host_id + "/" + uuid));
    std::set<std::string> seen;
    for (int r = 0; r < options.size; ++r) {
      DLP_ASSIGN_OR_RETURN(std::string other, store->Get(absl::StrCat(prefix, r), options.timeout));
      distinct = seen.insert(other).second && distinct;
    }
  }
  if (distinct) return MakeNcclPath(options, store);
#endif
  return MakeStagingPath(host_ring);
#else
  (void)options;
  (void)store;
  (void)host_ring;
  return std::unique_ptr<DevicePath>();
#endif
}

}  // namespace dlp::runtime
