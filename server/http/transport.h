// One accepted connection's byte transport, plain TCP or TLS over OpenSSL,
// always non-blocking: a call that cannot progress says whether it waits for
// the socket to become readable or writable, and the caller polls.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace dlp::server {

enum class Io { kOk, kWantRead, kWantWrite, kClosed, kError };

struct IoResult {
  Io io;
  size_t bytes = 0;  // kOk only
};

class Transport {
 public:
  virtual ~Transport() = default;  // closes the socket
  // kOk once the connection can carry requests (at once for plain TCP).
  virtual Io Handshake() = 0;
  virtual IoResult Read(char* data, size_t size) = 0;
  virtual IoResult Write(const char* data, size_t size) = 0;
  // Bytes already received and decrypted, which a poll on the socket misses.
  virtual bool HasPending() const = 0;
  int fd() const { return fd_; }

 protected:
  explicit Transport(int fd) : fd_(fd) {}
  int fd_;
};

// Takes ownership of `fd` and makes it non-blocking.
std::unique_ptr<Transport> PlainTransport(int fd);

// A server-side TLS context from PEM files; owns the SSL_CTX.
class TlsContext {
 public:
  static absl::StatusOr<std::shared_ptr<TlsContext>> Load(const std::string& cert_file,
                                                          const std::string& key_file);
  ~TlsContext();
  std::unique_ptr<Transport> Wrap(int fd) const;  // nullptr if OpenSSL fails

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

}  // namespace dlp::server
