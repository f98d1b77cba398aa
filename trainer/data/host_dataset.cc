#include "data/host_dataset.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace dlp::fmnist {
namespace {

Samples SamplesOf(const Dataset& set) { return {set.count, set.pixels.data(), set.labels.data()}; }

absl::StatusOr<HostDatasets> LoadOwn(const std::string& dir, int limit_train, int limit_test) {
  HostDatasets d;
  DLP_ASSIGN_OR_RETURN(d.own_train, LoadDataset(dir, "train", limit_train));
  DLP_ASSIGN_OR_RETURN(d.own_test, LoadDataset(dir, "t10k", limit_test));
  d.train = SamplesOf(d.own_train);
  d.test = SamplesOf(d.own_test);
  return d;
}

// A set's bytes in the block: its labels first (4-byte aligned), then its pixels.
size_t Bytes(int64_t count) { return static_cast<size_t>(count) * (sizeof(int32_t) + kImageSize); }

char* Put(const Dataset& set, char* at) {
  std::memcpy(at, set.labels.data(), set.labels.size() * sizeof(int32_t));
  at += set.labels.size() * sizeof(int32_t);
  std::memcpy(at, set.pixels.data(), set.pixels.size());
  return at + set.pixels.size();
}

const char* View(int64_t count, const char* at, Samples& samples) {
  samples.count = static_cast<int>(count);
  samples.labels = reinterpret_cast<const int32_t*>(at);
  samples.pixels = reinterpret_cast<const uint8_t*>(at + count * sizeof(int32_t));
  return at + Bytes(count);
}

// Rank 0's `text` (up to 1 KiB) on every rank.
absl::StatusOr<std::string> BroadcastText(Collective& group, absl::string_view text) {
  int64_t words[128] = {};
  const size_t n = std::min(text.size(), sizeof(words) - 1);
  if (group.rank() == 0) std::memcpy(words, text.data(), n);
  DLP_RETURN_IF_ERROR(group.Broadcast(words, 128));
  const char* bytes = reinterpret_cast<const char*>(words);
  return std::string(bytes, strnlen(bytes, sizeof(words) - 1));
}

}  // namespace

absl::StatusOr<HostDatasets> LoadDatasetsOncePerHost(Collective& group, const std::string& dir,
                                                     int limit_train, int limit_test) {
  if (group.size() == 1) return LoadOwn(dir, limit_train, limit_test);
  const bool rank0 = group.rank() == 0;
  absl::StatusOr<HostDatasets> own =
      rank0 ? LoadOwn(dir, limit_train, limit_test) : absl::StatusOr<HostDatasets>(HostDatasets{});
  // Rank 0 says whether it could (its status code), and how many samples: the
  // others then know where each set lies in its block...
  int64_t header[3] = {static_cast<int64_t>(own.status().code()), own.ok() ? own->train.count : 0,
                       own.ok() ? own->test.count : 0};
  DLP_RETURN_IF_ERROR(group.Broadcast(header, 3));
  if (header[0] != 0) {
    // ...or fail with its error: whichever rank ends first, dlp-run stops
    // the others, so each says what is missing.
    DLP_ASSIGN_OR_RETURN(std::string why, BroadcastText(group, own.status().message()));
    if (rank0) return own.status();
    return absl::Status(static_cast<absl::StatusCode>(header[0]),
                        absl::StrCat("rank 0 could not read the dataset: ", why));
  }
  absl::StatusOr<std::unique_ptr<SharedBlocks>> blocks =
      group.AllocateShared(rank0 ? Bytes(header[1]) + Bytes(header[2]) : 0);
  // Every rank gets the same answer (dlp_shared_alloc): apart, each reads its own.
  if (!blocks.ok()) return rank0 ? std::move(own) : LoadOwn(dir, limit_train, limit_test);
  char* block = reinterpret_cast<char*>((*blocks)->block(0));
  if (rank0) Put(own->own_test, Put(own->own_train, block));
  DLP_RETURN_IF_ERROR(group.Barrier());  // written before any rank reads
  HostDatasets d;
  View(header[2], View(header[1], block, d.train), d.test);
  d.read_once = true;
  d.shared = *std::move(blocks);
  return d;  // rank 0's own copies are freed here: one copy a host
}

}  // namespace dlp::fmnist
