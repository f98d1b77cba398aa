#include "server/http/gated_server.h"

#include <sys/resource.h>
#include <sys/socket.h>

#include "server/http/gated_stream.h"

namespace dlp::server {
namespace {

// httplib's accept loop enqueues each socket's processing; running it inline
// is right here, since process_and_close_socket only hands the socket over.
class InlineQueue : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

}  // namespace

GatedServer::GatedServer(GatedServerOptions options)
    : options_(std::move(options)),
      workers_(options_.min_workers, options_.max_workers),
      gate_(options_.gate, [this](std::unique_ptr<Connection> c) {
        // std::function needs a copyable callable: the connection rides in a shared_ptr.
        auto shared = std::make_shared<std::unique_ptr<Connection>>(std::move(c));
        workers_.Submit([this, shared] { Serve(std::move(*shared)); });
      }) {
  new_task_queue = [] { return new InlineQueue(); };
  set_payload_max_length(options_.gate.limits.max_body_bytes);
  (void)gate_.Start();
}

GatedServer::~GatedServer() { Shutdown(); }

void GatedServer::WidenBacklog(int backlog) {
  if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, backlog);
}

void GatedServer::Shutdown() {
  stop();
  gate_.Stop();
  workers_.Shutdown();
}

bool GatedServer::process_and_close_socket(socket_t sock) {
  gate_.Accept(sock);
  return true;
}

void GatedServer::Serve(std::unique_ptr<Connection> connection) {
  bool keep = false;
  {
    GatedStream stream(*connection, options_.gate.limits);
    const bool last =
        ++connection->requests >= static_cast<int>(options_.keep_alive_requests) || !is_running();
    bool closed = false;
    // httplib calls this only for a request it parsed. One it could not parse
    // is answered 400 and its connection closed: what follows the unparsed
    // bytes cannot be told from a request.
    bool parsed = false;
    const bool written =
        process_request(stream, last, closed, [&parsed](httplib::Request&) { parsed = true; });
    keep = written && parsed && !closed && !last && stream.healthy() && is_running();
  }
  if (keep) gate_.Resume(std::move(connection));
}

size_t RaiseDescriptorLimit() {
  rlimit limit = {};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur;
}

}  // namespace dlp::server
