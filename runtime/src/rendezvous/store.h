// RendezvousStore: a small key-value store with blocking reads, through
// which ranks exchange addresses. dlp-run hosts a TcpStoreServer; every rank
// connects to it (DLP_STORE_ADDR=host:port). Keys are namespaced per
// rendezvous round by the callers ("r3/addr/5").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

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

// Serves the store on a background thread until destroyed or Stop() is called.
class TcpStoreServer {
 public:
  virtual ~TcpStoreServer() = default;
  // host "0.0.0.0" or an address; port 0 picks a free port.
  static absl::StatusOr<std::unique_ptr<TcpStoreServer>> Start(const std::string& host, int port);
  virtual int port() const = 0;
  virtual void Stop() = 0;
};

// Connects, retrying until `timeout` (the server may start after the client).
absl::StatusOr<std::unique_ptr<RendezvousStore>> ConnectTcpStore(const std::string& host, int port,
                                                                 absl::Duration timeout);

}  // namespace dlp::runtime
