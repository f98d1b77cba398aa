// The gate: one epoll thread that holds every connection between requests.
// It completes TLS handshakes and reads each request's head without blocking,
// under RequestLimits, and answers what is too slow, too large or lacks a valid
// token itself (408, 413, 431, 411, 400, 401). Only a complete, admitted head
// reaches a worker thread, so clients that trickle bytes or never authenticate
// cost a file descriptor and a buffer, not a thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "server/http/connection.h"

namespace dlp::server {

struct GateOptions {
  RequestLimits limits;
  std::shared_ptr<const TlsContext> tls;  // null: plain HTTP
  size_t max_connections = 4096;          // beyond: new connections are closed at once
  // Decides on a complete head; an error is answered with its HTTP status.
  std::function<absl::Status(const HeadFields&)> admit;
  // The body of an error answer (application/json).
  std::function<std::string(const absl::Status&)> error_body;
};

class Gate {
 public:
  // Receives each admitted connection, its head at the start of its buffer.
  using Dispatch = std::function<void(std::unique_ptr<Connection>)>;

  Gate(GateOptions options, Dispatch dispatch);
  ~Gate();  // Stop()

  absl::Status Start();
  // Closes every connection the gate holds; later Accept/Resume close theirs.
  void Stop();

  // Thread-safe. Takes ownership of a freshly accepted socket.
  void Accept(int fd);
  // Thread-safe. A kept-alive connection waiting for its next request.
  void Resume(std::unique_ptr<Connection> connection);

  size_t size() const { return count_; }

 private:
  void Loop();
  void Adopt(std::unique_ptr<Connection> connection);
  // Moves a connection on as far as it can go without blocking.
  void Progress(Connection* c);
  void ReadHead(Connection* c);
  // Answers `code` with `status` as the body, then closes after a short drain.
  void Reject(Connection* c, int code, const absl::Status& status);
  void Watch(Connection* c, uint32_t events);
  void Drop(Connection* c);
  void Hand(Connection* c);
  void Expire();

  const GateOptions options_;
  const Dispatch dispatch_;
  int epoll_ = -1, wake_ = -1;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<size_t> count_{0};  // held and incoming

  std::mutex mu_;  // guards incoming_
  std::vector<std::unique_ptr<Connection>> incoming_;

  std::unordered_map<Connection*, std::unique_ptr<Connection>> held_;  // gate thread only
};

}  // namespace dlp::server
