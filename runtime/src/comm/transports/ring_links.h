// A rank's place in a ring of links: what the ring algorithms
// (algorithms/ring.h) and the GPU staging path (cuda_path.h) run over.
#pragma once

#include "absl/time/time.h"
#include "comm/transports/link.h"

namespace dlp::runtime {

struct RingContext {
  int rank = 0;
  int size = 1;
  SendLink* next = nullptr;  // null when size == 1
  RecvLink* prev = nullptr;
  absl::Duration timeout = absl::Seconds(60);  // longest time without progress
  bool share_cores = false;                    // more local ranks than cores: waits yield first
};

}  // namespace dlp::runtime
