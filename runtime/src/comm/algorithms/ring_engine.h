// The engine under the ring algorithms: runs a list of steps, each "send
// these bytes to the next rank, receive those bytes from the previous rank
// (copy or reduce them into place)", streaming all of them at once through
// the links in one thread, with a no-progress timeout.
#pragma once

#include <vector>

#include "comm/algorithms/ring.h"

namespace dlp::runtime {

struct RingStep {
  const char* send = nullptr;
  size_t send_bytes = 0;
  // The send may only run as far as receive step `send_after` has been
  // processed (the same bytes, forwarded); -1 when the data is ready.
  int send_after = -1;
  char* recv = nullptr;
  size_t recv_bytes = 0;
  bool reduce = false;   // reduce into recv rather than copy
  const char* own = nullptr;  // with reduce: this rank's input (recv = own op incoming)
  bool average = false;  // divide the reduced elements by the ring size
};

struct StepKind {
  dlp_dtype dtype;
  dlp_op op;
};

absl::Status RunRingSteps(const RingContext& ring, const std::vector<RingStep>& steps,
                          StepKind kind, const char* what);

}  // namespace dlp::runtime
