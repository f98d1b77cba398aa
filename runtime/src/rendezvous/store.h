// RendezvousStore: a small key-value store with blocking reads, through
// which ranks exchange addresses. dlp-run hosts a TcpStoreServer; every rank
// connects to it (DLP_STORE_ADDR=host:port) and proves the job's secret
// (DLP_RDZV_SECRET, common/peer_proof.h) before it may read or write a key.
// Keys are namespaced per rendezvous round by the callers ("r3/addr/5").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/job_secret.h"

namespace dlp::runtime {

class RendezvousStore {
 public:
  virtual ~RendezvousStore() = default;
  virtual absl::Status Set(const std::string& key, const std::string& value) = 0;
  // Blocks until `key` exists; DeadlineExceeded (naming the key) after `timeout`.
  virtual absl::StatusOr<std::string> Get(const std::string& key, absl::Duration timeout) = 0;
  // Atomically adds `delta` to the integer at `key` (0 when absent); returns the new value.
  virtual absl::StatusOr<int64_t> Add(const std::string& key, int64_t delta) = 0;
  // Blocks until every key exists.
  virtual absl::Status Wait(const std::vector<std::string>& keys, absl::Duration timeout) = 0;
};

// What one store holds at most. A job's keys are addresses, segment names
// and counters, so a few MiB are plenty; the caps keep a runaway client from
// filling the memory of the job's cgroup. A request over a cap is answered
// with an error (ResourceExhausted at the client) and the store keeps serving.
struct StoreLimits {
  size_t max_key_bytes = 4 << 10;
  size_t max_value_bytes = 1 << 20;
  size_t max_total_bytes = 64 << 20;  // every key and value together
};

// Serves the store on a background thread until destroyed or Stop() is called.
// A connection is served only once it proved `secret`; one that does not is
// closed before any request is read from it.
class TcpStoreServer {
 public:
  virtual ~TcpStoreServer() = default;
  // host "0.0.0.0" or an address; port 0 picks a free port.
  static absl::StatusOr<std::unique_ptr<TcpStoreServer>> Start(const std::string& host, int port,
                                                               const JobSecret& secret,
                                                               const StoreLimits& limits = {});
  virtual int port() const = 0;
  virtual void Stop() = 0;
};

// Connects, retrying until `timeout` (the server may start after the client),
// and proves `secret`; PermissionDenied when the store holds another secret.
absl::StatusOr<std::unique_ptr<RendezvousStore>> ConnectTcpStore(const std::string& host, int port,
                                                                 const JobSecret& secret,
                                                                 absl::Duration timeout);

}  // namespace dlp::runtime
