// An accepted HTTP connection as it passes between the gate (which waits for
// each request's head) and a worker (which serves the request).
#pragma once

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "server/http/request_limits.h"
#include "server/http/transport.h"

namespace dlp::server {

struct Connection {
  enum class Phase {
    kHandshake,  // TLS handshake under way
    kIdle,       // waiting for a request; no byte of it yet
    kHead,       // a request's head is arriving
    kDraining,   // answered with an error; reading what the client still sends
  };

  std::unique_ptr<Transport> transport;
  Phase phase = Phase::kHandshake;
  absl::Time deadline;  // of the current phase
  // Received and not yet consumed: the next request's head, and whatever
  // arrived after it (body bytes, a pipelined request).
  std::string buffer;
  HeadScanner scanner;
  size_t drained = 0;  // kDraining: bytes discarded so far
  int requests = 0;    // served on this connection
};

}  // namespace dlp::server
