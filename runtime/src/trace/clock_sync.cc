#include "trace/clock_sync.h"

#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "trace/tracer.h"

namespace dlp::runtime::trace {
namespace {

constexpr int kRounds = 5;
constexpr absl::Duration kWait = absl::Seconds(5);

std::string Key(const std::string& prefix, int rank, int round, const char* what) {
  return absl::StrCat(prefix, "/clk/", rank, "/", round, "/", what);
}

}  // namespace

absl::Status SyncClocks(RendezvousStore& store, const std::string& prefix, int rank, int size) {
  if (!Enabled() || size < 2) return absl::OkStatus();
  const int64_t begin = NowNs();
  if (rank == 0) {
    for (int peer = 1; peer < size; ++peer) {
      for (int r = 0; r < kRounds; ++r) {
        auto req = store.Get(Key(prefix, peer, r, "req"), kWait);
        if (!req.ok()) break;  // that rank does not trace: skip it
        auto s = store.Set(Key(prefix, peer, r, "resp"), absl::StrCat(NowNs()));
        if (!s.ok()) return s;
      }
    }
    Complete("clock_sync", "lifecycle", begin, NowNs());
    Metadata("dlp_clock_offset", "\"offset_us\":0,\"rtt_us\":0,\"reference_rank\":0");
    return absl::OkStatus();
  }
  ClockEstimate best;
  best.rtt_us = std::numeric_limits<double>::infinity();
  for (int r = 0; r < kRounds; ++r) {
    const int64_t t1 = NowNs();
    if (auto s = store.Set(Key(prefix, rank, r, "req"), "1"); !s.ok()) return s;
    auto resp = store.Get(Key(prefix, rank, r, "resp"), kWait);
    const int64_t t2 = NowNs();
    if (!resp.ok()) return resp.status();
    int64_t t0 = 0;
    if (!absl::SimpleAtoi(*resp, &t0)) return absl::InternalError("bad clock reply");
    const double rtt = (t2 - t1) / 1e3;
    if (rtt < best.rtt_us) {
      best.rtt_us = rtt;
      best.offset_us = (t0 - (t1 + t2) / 2.0) / 1e3;
    }
  }
  Complete("clock_sync", "lifecycle", begin, NowNs());
  Metadata("dlp_clock_offset",
           absl::StrFormat("\"offset_us\":%.3f,\"rtt_us\":%.3f,\"reference_rank\":0",
                           best.offset_us, best.rtt_us));
  return absl::OkStatus();
}

}  // namespace dlp::runtime::trace
