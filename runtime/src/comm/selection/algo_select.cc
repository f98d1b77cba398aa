#include "comm/selection/algo_select.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "comm/transports/shm_group.h"

namespace dlp::runtime {

const char* AlgoName(Algo a) {
  switch (a) {
    case Algo::kRing:
      return "ring";
    case Algo::kDirect:
      return "direct";
    case Algo::kOneShot:
      return "oneshot";
    case Algo::kDoubling:
      return "doubling";
    case Algo::kHierarchical:
      return "hierarchical";
  }
  return "?";
}

namespace {

// Several hosts, and on some of them several ranks.
bool Layered(const GroupShape& shape) {
  return !shape.one_host && shape.hosts >= 2 && shape.hosts < shape.ranks;
}

}  // namespace

absl::Status CheckAlgo(const std::string& forced, const GroupShape& shape) {
  if (forced == "auto" || forced == "ring" || forced == "doubling") return absl::OkStatus();
  if (forced == "hierarchical") {
    if (shape.ranks < 2 || Layered(shape)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        "DLP_COMM_ALGO=hierarchical needs several hosts with several ranks on some host");
  }
  if (forced != "direct" && forced != "oneshot") {
    return absl::InvalidArgumentError(
        absl::StrCat("DLP_COMM_ALGO='", forced,
                     "': expected ring, direct, oneshot, doubling, hierarchical or auto"));
  }
  if (shape.ranks > 1 && !shape.one_host) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DLP_COMM_ALGO=", forced,
        " needs every rank on one host over shared memory; this group spans hosts or uses TCP"));
  }
  return absl::OkStatus();
}

bool NeedsDoubling(const GroupShape& shape, const std::string& forced) {
  return shape.ranks > 1 && (forced == "doubling" || (forced == "auto" && !shape.one_host));
}

bool NeedsHierarchy(const GroupShape& shape, const std::string& forced) {
  return Layered(shape) && (forced == "auto" || forced == "hierarchical");
}

Algo ChooseAllreduce(const GroupShape& shape, size_t bytes, const std::string& forced) {
  if (shape.ranks < 2 || forced == "ring") return Algo::kRing;
  if (forced == "doubling") return Algo::kDoubling;
  if (forced == "hierarchical") return Algo::kHierarchical;
  if (!shape.one_host) {
    if (bytes <= kDoublingBytes) return Algo::kDoubling;
    return Layered(shape) ? Algo::kHierarchical : Algo::kRing;
  }
  if (forced == "direct") return Algo::kDirect;
  if (forced == "oneshot") return bytes <= ShmGroup::kSlotBytes ? Algo::kOneShot : Algo::kDirect;
  if (bytes * static_cast<size_t>(shape.ranks) <= kOneShotBytes) return Algo::kOneShot;
  return shape.oversubscribed && bytes > kSharedDirectBytes ? Algo::kRing : Algo::kDirect;
}

Algo ChooseBlockCollective(const GroupShape& shape, const std::string& forced) {
  const bool shm = forced == "auto" || forced == "direct" || forced == "oneshot";
  return shape.ranks > 1 && shape.one_host && shm ? Algo::kDirect : Algo::kRing;
}

size_t DirectChunkBytes(const GroupShape& shape) {
  return shape.oversubscribed ? ShmGroup::kSlotBytes : size_t{256} << 10;
}

}  // namespace dlp::runtime
