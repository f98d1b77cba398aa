// A raw TCP client for tests that misbehave on purpose: trickle bytes, send
// only a head, never read. Every read has a deadline, and so does every
// write (10 s without progress: a server that stopped reading).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace dlp::testing {

class RawClient {
 public:
  // `address` is "127.0.0.1:PORT"; connected() says whether it worked.
  explicit RawClient(const std::string& address) {
    const size_t colon = address.rfind(':');
    int port = 0;
    if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port)) {
      return;
    }
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, address.substr(0, colon).c_str(), &addr.sin_addr);
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const timeval stall = {10, 0};
    if (fd_ >= 0) setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &stall, sizeof(stall));
    if (fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      Close();
    }
  }
  ~RawClient() { Close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

  // Sends all of `data`; false once the server stopped taking it.
  bool Send(const std::string& data) {
    for (size_t done = 0; done < data.size();) {
      const ssize_t n = send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  // Whether bytes (or the end of the stream) can be read within `timeout`.
  bool Readable(absl::Duration timeout) const {
    pollfd pfd = {fd_, POLLIN, 0};
    return poll(&pfd, 1, static_cast<int>(absl::ToInt64Milliseconds(timeout))) == 1;
  }

  // Reads until `needle` arrived `count` times, the stream ended or `timeout`
  // passed; returns everything read so far.
  std::string ReadUntil(const std::string& needle, absl::Duration timeout, int count = 1) {
    const absl::Time deadline = absl::Now() + timeout;
    while (Count(needle) < count && absl::Now() < deadline) {
      if (!Readable(deadline - absl::Now())) break;
      char buf[4096];
      const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      received_.append(buf, static_cast<size_t>(n));
    }
    return received_;
  }

  // Reads until the server ends the stream (or resets it) or `timeout`
  // passes; true when it ended.
  bool ReadToEnd(absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      if (!Readable(deadline - absl::Now())) return false;
      char buf[4096];
      const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) return true;
      received_.append(buf, static_cast<size_t>(n));
    }
    return false;
  }
  // The status code of the response's first line, or 0 before `timeout`.
  int Status(absl::Duration timeout) {
    const std::string head = ReadUntil("\r\n", timeout);
    int code = 0;
    if (head.rfind("HTTP/1.1 ", 0) != 0 || !absl::SimpleAtoi(head.substr(9, 3), &code)) return 0;
    return code;
  }

  int Count(const std::string& needle) const {
    int n = 0;
    for (size_t at = received_.find(needle); at != std::string::npos;
         at = received_.find(needle, at + needle.size())) {
      ++n;
    }
    return n;
  }

 private:
  int fd_ = -1;
  std::string received_;
};

// A GET request's head, with the bearer token unless it is empty.
inline std::string GetRequest(const std::string& target, const std::string& token) {
  std::string head = "GET " + target + " HTTP/1.1\r\nHost: dlpd\r\n";
  if (!token.empty()) head += "Authorization: Bearer " + token + "\r\n";
  return head + "\r\n";
}

}  // namespace dlp::testing
