// Clock offsets between hosts, estimated at communicator init.
//
// NTP-style through the rendezvous store: rank i (i > 0) posts a request key,
// rank 0 answers with its monotonic clock, and rank i takes
//   offset = t0 - (t_send + t_recv) / 2
// from the round with the smallest round-trip time (the error is at most half
// that RTT). Rank 0 answers every other rank in turn. The result is written to
// the trace as "dlp_clock_offset" metadata (microseconds to add to this
// rank's timestamps to get rank 0's clock); `dlp profile` applies it.
//
// Runs only when tracing is on (every rank of a dlp-run group sees the same
// environment); a rank that does not answer within a few seconds is skipped.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "rendezvous/store.h"

namespace dlp::runtime::trace {

struct ClockEstimate {
  double offset_us = 0;  // add to local timestamps
  double rtt_us = 0;     // best round trip
};

// Every rank of the communicator calls this with the same `prefix`. Records the
// estimate in the trace; a no-op when tracing is off.
absl::Status SyncClocks(RendezvousStore& store, const std::string& prefix, int rank, int size);

}  // namespace dlp::runtime::trace
