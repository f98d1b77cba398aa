// dlpd's API (server/api/routes.cc) in-process: random methods,
// paths, queries, headers and bodies go through cpp-httplib's request parser
// and routing into the real handlers, over a real controller and job store in
// a temporary state folder. The controller's loop is not started, so no job
// ever runs; long polls (`/wait`, `logs?follow=`) are left out, since they
// wait for jobs that never end (the API's own deadlines are tested elsewhere).
#include <fuzzer/FuzzedDataProvider.h>
#include <httplib.h>
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "server/api/long_requests.h"
#include "server/api/routes.h"
#include "server/auth/auth.h"
#include "server/controller/controller.h"
#include "server/scheduler/policy.h"
#include "server/store/job_store.h"
#include "server/store/tenant_store.h"

namespace {

// process_request is cpp-httplib's entry for one request read from a Stream.
class InProcessServer : public httplib::Server {
 public:
  using httplib::Server::process_request;
};

// The request's bytes in, the response's bytes dropped.
class RequestStream : public httplib::Stream {
 public:
  explicit RequestStream(std::string request) : request_(std::move(request)) {}
  bool is_readable() const override { return true; }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, request_.size() - at_);
    memcpy(ptr, request_.data() + at_, n);
    at_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char*, size_t size) override { return static_cast<ssize_t>(size); }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 40000;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 7070;
  }
  socket_t socket() const override { return -1; }

 private:
  std::string request_;
  size_t at_ = 0;
};

struct Daemon {
  std::unique_ptr<dlp::server::Controller> controller;
  std::unique_ptr<dlp::server::TenantStore> tenants;
  std::unique_ptr<dlp::server::Authenticator> auth;
  dlp::server::LongRequests long_requests{32, 1024};
  dlp::server::ApiContext context;
  InProcessServer server;
};

Daemon& TheDaemon() {
  static Daemon* daemon = [] {
    std::string base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
    std::string dir = base + "/dlp-fuzz-api-XXXXXX";
    if (mkdtemp(dir.data()) == nullptr) abort();
    auto store = dlp::server::JobStore::Open(dir + "/dlpd.db");
    if (!store.ok()) abort();
    dlp::server::ControllerOptions options;
    options.capacity = {4000, int64_t{8} << 30, 2000};
    auto* d = new Daemon;
    d->controller = std::make_unique<dlp::server::Controller>(
        std::move(*store), dlp::server::CreateDefaultPolicy(),
        dlp::server::Executor({dir + "/jobs", absl::Seconds(1), "/bin/false"}), options);
    auto tenants = dlp::server::TenantStore::Open(dir + "/dlpd.db");
    if (!tenants.ok()) abort();
    d->tenants = std::move(*tenants);
    if (!d->tenants->ImportTokens({{"alice", dlp::server::HashToken("alice-token")}}).ok()) abort();
    d->auth = std::make_unique<dlp::server::Authenticator>("owner-token", *d->tenants);
    d->context = {d->controller.get(), d->auth.get(), d->tenants.get(), "", &d->long_requests,
                  [] {}};
    dlp::server::InstallRoutes(d->server, d->context);
    return d;
  }();
  return *daemon;
}

std::string Escape(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

template <size_t N>
std::string Pick(FuzzedDataProvider& in, const char* const (&choices)[N]) {
  const size_t i = in.ConsumeIntegralInRange<size_t>(0, N);
  return i < N ? choices[i] : in.ConsumeRandomLengthString(32);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Daemon& daemon = TheDaemon();
  FuzzedDataProvider in(data, size);
  static const char* const kMethods[] = {"GET", "POST", "DELETE", "PUT", "HEAD", "OPTIONS"};
  static const char* const kPaths[] = {
      "/v1/health",         "/v1/jobs",         "/v1/jobs/ID",        "/v1/jobs/ID/cancel",
      "/v1/jobs/ID/events", "/v1/jobs/ID/logs", "/v1/jobs/ID/traces", "/v1/jobs/ID/usage",
      "/metrics",           "/v1/shutdown"};
  static const char* const kIds[] = {"1", "2", "3", "0", "-1", "99999999999999999999"};
  static const char* const kKeys[] = {"tail",  "since", "replica", "metrics", "state",
                                      "queue", "limit", "label",   "tenant",  "all",
                                      "columns", "where", "sort",  "offset"};
  static const char* const kTokens[] = {"Bearer owner-token", "Bearer alice-token", "Bearer nobody",
                                        "owner-token"};
  const std::string method = Pick(in, kMethods);
  std::string path = Pick(in, kPaths);
  if (const size_t id = path.find("ID"); id != std::string::npos)
    path.replace(id, 2, Pick(in, kIds));
  if (path.find("wait") != std::string::npos) return 0;  // a long poll (see above)
  std::string query;
  for (int n = in.ConsumeIntegralInRange(0, 4); n > 0; --n) {
    const std::string key = Pick(in, kKeys);
    if (key == "follow") return 0;  // a long poll (see above)
    query +=
        (query.empty() ? "?" : "&") + Escape(key) + "=" + Escape(in.ConsumeRandomLengthString(24));
  }
  std::string request = method + " " + Escape(path) + query + " HTTP/1.1\r\nHost: dlpd\r\n";
  if (in.ConsumeBool()) request += "Authorization: " + Pick(in, kTokens) + "\r\n";
  for (int n = in.ConsumeIntegralInRange(0, 3); n > 0; --n) {
    std::string name = in.ConsumeRandomLengthString(16);
    std::string value = in.ConsumeRandomLengthString(32);
    std::erase_if(name, [](char c) { return c == '\r' || c == '\n' || c == ':'; });
    std::erase_if(value, [](char c) { return c == '\r' || c == '\n'; });
    if (!name.empty()) request += name + ": " + value + "\r\n";
  }
  const std::string body = in.ConsumeRemainingBytesAsString();
  request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
             "\r\n\r\n" + body;
  RequestStream stream(std::move(request));
  bool closed = false;
  daemon.server.process_request(stream, true, closed, [](httplib::Request&) {});
  return 0;
}
