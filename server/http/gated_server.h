// A cpp-httplib server whose connections go through the gate (gate.h): the
// library's accept loop hands each socket over at once, the gate reads heads
// under RequestLimits, and a bounded, growing pool of workers serves admitted
// requests with httplib's own parsing and routing. Serves HTTPS itself when
// given a TlsContext (the handshake happens in the gate, without a thread).
#pragma once

#include <httplib.h>

#include <memory>

#include "server/http/gate.h"
#include "server/http/worker_pool.h"

namespace dlp::server {

struct GatedServerOptions {
  GateOptions gate;
  size_t min_workers = 8;
  size_t max_workers = 1100;  // above the long-request bound, for short requests
  size_t keep_alive_requests = 1000;
};

class GatedServer : public httplib::Server {
 public:
  explicit GatedServer(GatedServerOptions options);
  ~GatedServer() override;

  // After bind_to_port: a listen backlog for bursts of connections (httplib's is 5).
  void WidenBacklog(int backlog);
  // Stops listening, closes every connection, joins the workers; call after
  // listen_after_bind() returned or from another thread.
  void Shutdown();

 private:
  bool process_and_close_socket(socket_t sock) override;
  void Serve(std::unique_ptr<Connection> connection);

  const GatedServerOptions options_;
  WorkerPool workers_;
  Gate gate_;
};

// Sets RLIMIT_NOFILE's soft limit to the hard one: each held connection is a
// descriptor. Returns the new soft limit.
size_t RaiseDescriptorLimit();

}  // namespace dlp::server
