// The httplib::Stream a worker serves one request over: first the head the
// gate buffered, then the socket, with a total deadline for the body and a
// bound on how long a write may stall. is_writable() also says false once the
// client hung up, so a streaming response notices a closed client at once.
#pragma once

#include <httplib.h>

#include "absl/time/time.h"
#include "server/http/connection.h"

namespace dlp::server {

class GatedStream : public httplib::Stream {
 public:
  // The body deadline runs from construction.
  GatedStream(Connection& connection, const RequestLimits& limits);
  // Keeps the bytes the request did not consume (a pipelined request).
  ~GatedStream() override;

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return connection_.transport->fd(); }

  // False after a read or write failed or timed out: the connection must close.
  bool healthy() const { return healthy_; }

 private:
  // Polls for `io` (kWantRead or kWantWrite) until `deadline`.
  bool Await(Io io, absl::Time deadline) const;

  Connection& connection_;
  const RequestLimits& limits_;
  const absl::Time read_deadline_;
  size_t consumed_ = 0;      // of connection_.buffer
  size_t socket_bytes_ = 0;  // read from the transport
  bool healthy_ = true;
};

}  // namespace dlp::server
