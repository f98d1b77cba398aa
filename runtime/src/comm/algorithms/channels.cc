#include "comm/algorithms/channels.h"

#include <algorithm>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "comm/core/dtype.h"
#include "dlp/status.h"

namespace dlp::runtime {
namespace {

constexpr int kMaxAutoChannels = 4;
// Below this many bytes per part a thread's start costs more than it saves.
constexpr size_t kMinPartBytes = 512 << 10;

}  // namespace

int ChannelWish(const CommOptions& o, bool neighbours_on_host) {
  if (o.channels > 0) return o.channels;
  if (!neighbours_on_host) return 1;
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(cores / std::max(1, o.local_size), 1, kMaxAutoChannels);
}

absl::StatusOr<int> AgreeOnChannels(const CommOptions& o, RendezvousStore& store, int wish) {
  const std::string prefix = absl::StrCat(o.key_prefix, "/channels/");
  DLP_RETURN_IF_ERROR(store.Set(absl::StrCat(prefix, o.rank), std::to_string(wish)));
  int agreed = wish;
  for (int r = 0; r < o.size; ++r) {
    DLP_ASSIGN_OR_RETURN(std::string value, store.Get(absl::StrCat(prefix, r), o.timeout));
    int theirs = 1;
    if (!absl::SimpleAtoi(value, &theirs) || theirs < 1) {
      return absl::InternalError(absl::StrCat("rank ", r, " published channels '", value, "'"));
    }
    agreed = std::min(agreed, theirs);
  }
  return agreed;
}

std::string ChannelPrefix(const CommOptions& o, int k) {
  return k == 0 ? o.key_prefix : absl::StrCat(o.key_prefix, "/ch", k);
}

absl::Status SplitOverChannels(
    size_t count, size_t elem, int channels,
    const std::function<absl::Status(int k, size_t begin, size_t end)>& part) {
  const size_t parts = std::clamp<size_t>(count * elem / kMinPartBytes, 1,
                                          static_cast<size_t>(std::max(channels, 1)));
  if (parts == 1) return part(0, 0, count);
  std::vector<absl::Status> results(parts);
  auto run_part = [&](size_t k) {
    results[k] = part(static_cast<int>(k), count * k / parts, count * (k + 1) / parts);
  };
  std::vector<std::thread> threads;
  threads.reserve(parts - 1);
  for (size_t k = 1; k < parts; ++k) threads.emplace_back(run_part, k);
  run_part(0);
  for (std::thread& th : threads) th.join();
  for (const absl::Status& s : results) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ChanneledAllreduce(const std::vector<RingContext>& rings, const void* send, void* recv,
                                size_t count, dlp_dtype t, dlp_op op) {
  const size_t elem = DTypeSize(t);
  return SplitOverChannels(
      count, elem, static_cast<int>(rings.size()), [&](int k, size_t begin, size_t end) {
        return RingAllreduce(rings[static_cast<size_t>(k)],
                             static_cast<const char*>(send) + begin * elem,
                             static_cast<char*>(recv) + begin * elem, end - begin, t, op);
      });
}

}  // namespace dlp::runtime
