#include "server/http/transport.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"

namespace dlp::server {
namespace {

void MakeNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

class Plain : public Transport {
 public:
  explicit Plain(int fd) : Transport(fd) { MakeNonBlocking(fd); }
  ~Plain() override { close(fd_); }
  Io Handshake() override { return Io::kOk; }
  IoResult Read(char* data, size_t size) override {
    const ssize_t n = recv(fd_, data, size, 0);
    if (n > 0) return {Io::kOk, static_cast<size_t>(n)};
    if (n == 0) return {Io::kClosed};
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return {Io::kWantRead};
    return {Io::kError};
  }
  IoResult Write(const char* data, size_t size) override {
    const ssize_t n = send(fd_, data, size, MSG_NOSIGNAL);
    if (n >= 0) return {Io::kOk, static_cast<size_t>(n)};
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return {Io::kWantWrite};
    return {Io::kError};
  }
  bool HasPending() const override { return false; }
};

class Tls : public Transport {
 public:
  Tls(int fd, SSL* ssl) : Transport(fd), ssl_(ssl) { MakeNonBlocking(fd); }
  ~Tls() override {
    if (handshaken_) SSL_shutdown(ssl_);  // best effort: a close_notify
    SSL_free(ssl_);
    close(fd_);
  }
  Io Handshake() override {
    const int rc = SSL_accept(ssl_);
    if (rc == 1) {
      handshaken_ = true;
      return Io::kOk;
    }
    return Failure(rc);
  }
  IoResult Read(char* data, size_t size) override {
    const int n = SSL_read(ssl_, data, static_cast<int>(std::min<size_t>(size, 1 << 30)));
    if (n > 0) return {Io::kOk, static_cast<size_t>(n)};
    return {Failure(n)};
  }
  IoResult Write(const char* data, size_t size) override {
    if (size == 0) return {Io::kOk, 0};
    const int n = SSL_write(ssl_, data, static_cast<int>(std::min<size_t>(size, 1 << 30)));
    if (n > 0) return {Io::kOk, static_cast<size_t>(n)};
    return {Failure(n)};
  }
  bool HasPending() const override { return SSL_pending(ssl_) > 0; }

 private:
  Io Failure(int rc) {
    const int error = SSL_get_error(ssl_, rc);
    ERR_clear_error();  // the queue is per thread; leave nothing for the next call
    switch (error) {
      case SSL_ERROR_WANT_READ:
        return Io::kWantRead;
      case SSL_ERROR_WANT_WRITE:
        return Io::kWantWrite;
      case SSL_ERROR_ZERO_RETURN:
        return Io::kClosed;
      case SSL_ERROR_SYSCALL:
        if (errno == EAGAIN || errno == EINTR) return Io::kWantRead;
        return Io::kError;
      default:
        return Io::kError;
    }
  }

  SSL* ssl_;
  bool handshaken_ = false;
};

}  // namespace

std::unique_ptr<Transport> PlainTransport(int fd) { return std::make_unique<Plain>(fd); }

absl::StatusOr<std::shared_ptr<TlsContext>> TlsContext::Load(const std::string& cert_file,
                                                             const std::string& key_file) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return absl::InternalError("OpenSSL: cannot create a TLS context");
  std::shared_ptr<TlsContext> context(new TlsContext(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat("cannot load the TLS certificate ", cert_file, " or key ", key_file));
  }
  return context;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

std::unique_ptr<Transport> TlsContext::Wrap(int fd) const {
  SSL* ssl = SSL_new(ctx_);
  if (ssl == nullptr || SSL_set_fd(ssl, fd) != 1) {
    if (ssl != nullptr) SSL_free(ssl);
    close(fd);
    return nullptr;
  }
  return std::make_unique<Tls>(fd, ssl);
}

}  // namespace dlp::server
