// The rendezvous store's protocol (runtime/src/rendezvous/store_protocol.h)
// from the network side: any bytes, sent by a stranger or by a client that
// proved the job's secret, to a real TcpStoreServer with small caps.
//
// Byte 0, even: a stranger's bytes. The server may send its challenge and
// nothing else, however the bytes look. Odd: the bytes follow a valid proof,
// as a rank's requests would. Either way the server must stay up and keep
// serving: a rank that connects afterwards gets its answer.
#include <poll.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <string>

#include "common/peer_proof.h"
#include "common/socket.h"
#include "rendezvous/store.h"

namespace {

using dlp::runtime::Fd;

const dlp::runtime::JobSecret& Secret() {
  static const dlp::runtime::JobSecret secret = *dlp::runtime::JobSecret::Generate();
  return secret;
}

// Everything the server sends until it closes the connection.
std::string Drain(int fd) {
  std::string got;
  char buf[4096];
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (dlp::runtime::PollFd(fd, POLLIN, deadline).ok()) {
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

// Stops the run, saying which expectation failed (a bare trap says nothing).
[[noreturn]] void Fail(const char* what, const absl::Status& status = absl::OkStatus()) {
  std::fprintf(stderr, "fuzz_rendezvous: %s %s\n", what, status.ToString().c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool proven = (data[0] & 1) != 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto server = dlp::runtime::TcpStoreServer::Start(
      "127.0.0.1", 0, Secret(),
      {.max_key_bytes = 64, .max_value_bytes = 256, .max_total_bytes = 4096});
  if (!server.ok()) Fail("the server did not start:", server.status());
  const int port = (*server)->port();
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  {
    auto fd = dlp::runtime::ConnectTcp("127.0.0.1", port, deadline);
    if (!fd.ok()) Fail("the stranger could not connect:", fd.status());
    if (proven) {
      absl::Status proof = dlp::runtime::ProveAsConnecting(
          fd->get(), Secret(), dlp::runtime::ProofPurpose::kStore, deadline);
      if (!proof.ok()) Fail("the proof failed:", proof);
    }
    (void)dlp::runtime::SendAll(fd->get(), bytes.data(), bytes.size(), deadline);
    ::shutdown(fd->get(), SHUT_WR);
    const std::string heard = Drain(fd->get());
    // A stranger hears the challenge at most: no reply to anything it sent.
    if (!proven && heard.size() > dlp::runtime::kProofChallengeBytes) {
      Fail("a stranger heard more than the challenge");
    }
  }
  auto rank = dlp::runtime::ConnectTcpStore("127.0.0.1", port, Secret(), absl::Seconds(10));
  if (!rank.ok()) Fail("a rank could not connect afterwards:", rank.status());
  if (absl::Status wait = (*rank)->Wait({}, absl::Seconds(10)); !wait.ok()) {
    Fail("a rank's request failed afterwards:", wait);
  }
  return 0;
}
