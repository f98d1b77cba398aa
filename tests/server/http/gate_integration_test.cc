// The HTTP gate in front of a real dlpd: clients that trickle bytes, send huge
// heads or announce huge bodies are answered (408, 431, 413) without taking a
// worker thread, so the owner's requests keep being served; a request that
// does not parse (bare LF line ends, a broken request line) gets one answer
// and its connection is closed.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <vector>

#include "../daemon/dlpd_fixture.h"
#include "absl/strings/str_cat.h"
#include "raw_client.h"

namespace dlp::testing {
namespace {

// The owner's health check on a fresh connection, bounded by `timeout`.
int Health(const Dlpd& dlpd, absl::Duration timeout = absl::Seconds(5)) {
  RawClient client(dlpd.address());
  if (!client.Send(GetRequest("/v1/health", dlpd.token()))) return 0;
  return client.Status(timeout);
}

// Peak resident memory of a process, from /proc/PID/status (kB).
int64_t PeakRssKb(int pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    int64_t kb = 0;
    if (line.rfind("VmHWM:", 0) == 0 &&
        absl::SimpleAtoi(Trimmed(line.substr(6, line.size() - 8)), &kb)) {
      return kb;
    }
  }
  return -1;
}

class GateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dlpd_ = std::make_unique<Dlpd>(dir_.Join("state"));
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
  }
  TempDir dir_;
  std::unique_ptr<Dlpd> dlpd_;
};

// More trickling clients than dlpd ever had threads: each holds a partial head.
TEST_F(GateTest, HealthAnswersWhileSlowClientsTrickleHeaders) {
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 100; ++i) {
    slow.push_back(std::make_unique<RawClient>(dlpd_->address()));
    ASSERT_TRUE(slow.back()->connected());
    ASSERT_TRUE(slow.back()->Send("G"));
  }
  const std::string head = GetRequest("/v1/health", dlpd_->token());
  for (size_t byte = 1; byte < 4; ++byte) {
    EXPECT_EQ(Health(*dlpd_), 200) << "with 100 slow clients, after " << byte << " bytes each";
    for (auto& client : slow) client->Send(head.substr(byte, 1));
  }
  // Their head deadline ends them with 408, whoever they are.
  EXPECT_EQ(slow.front()->Status(absl::Seconds(30)), 408);
}

TEST_F(GateTest, OversizedBodyIsRefusedBeforeItIsSent) {
  RawClient client(dlpd_->address());
  ASSERT_TRUE(client.Send(
      absl::StrCat("POST /v1/jobs HTTP/1.1\r\nHost: dlpd\r\nAuthorization: Bearer ", dlpd_->token(),
                   "\r\nContent-Type: application/json\r\n"
                   "Content-Length: 50000000\r\n\r\n")));
  // Not one body byte was sent: the answer cannot have waited for the body.
  EXPECT_EQ(client.Status(absl::Seconds(10)), 413);
  EXPECT_NE(client.ReadUntil("}", absl::Seconds(5)).find("at most 1048576"), std::string::npos);
  EXPECT_EQ(Health(*dlpd_), 200);
}

TEST_F(GateTest, EndlessHeadersAreRefusedEarlyWithBoundedMemory) {
  const int pid = dlpd_->process().pid();
  const int64_t before = PeakRssKb(pid);
  RawClient client(dlpd_->address());
  ASSERT_TRUE(client.Send("GET /v1/health HTTP/1.1\r\n"));
  // 200,000 headers (about 4 MB), sent until dlpd answers or all are sent.
  std::string batch;
  for (int i = 0; i < 200000 && !client.Readable(absl::ZeroDuration()); ++i) {
    absl::StrAppend(&batch, "X-Filler-", i, ": value\r\n");
    if (batch.size() >= 64 * 1024) {
      if (!client.Send(batch)) break;
      batch.clear();
    }
  }
  client.Send(batch + "\r\n");
  EXPECT_EQ(client.Status(absl::Seconds(30)), 431);
  const int64_t after = PeakRssKb(pid);
  ASSERT_GT(before, 0);
  EXPECT_LT(after - before, 16 * 1024)
      << "peak RSS grew from " << before << " to " << after << " kB";
  EXPECT_EQ(Health(*dlpd_), 200);
}

TEST_F(GateTest, ChunkedRequestBodiesAreRefused) {
  RawClient client(dlpd_->address());
  ASSERT_TRUE(
      client.Send(absl::StrCat("POST /v1/jobs HTTP/1.1\r\nHost: dlpd\r\nAuthorization: Bearer ",
                               dlpd_->token(), "\r\nTransfer-Encoding: chunked\r\n\r\n")));
  EXPECT_EQ(client.Status(absl::Seconds(10)), 411);
}

// Without Content-Length a request has no body: it is answered, not held.
TEST_F(GateTest, APostWithoutContentLengthHasNoBody) {
  RawClient client(dlpd_->address());
  ASSERT_TRUE(client.Send(absl::StrCat("POST /v1/jobs/999/cancel HTTP/1.1\r\nHost: dlpd\r\n",
                                       "Authorization: Bearer ", dlpd_->token(), "\r\n\r\n")));
  EXPECT_EQ(client.Status(absl::Seconds(10)), 404);
}

TEST_F(GateTest, KeepAliveAndPipelinedRequestsAreServed) {
  RawClient client(dlpd_->address());
  const std::string head = GetRequest("/v1/health", dlpd_->token());
  ASSERT_TRUE(client.Send(head + head));
  client.ReadUntil("\"ok\":true", absl::Seconds(10), 2);
  ASSERT_EQ(client.Count("HTTP/1.1 200"), 2);
  ASSERT_TRUE(client.Send(head));
  client.ReadUntil("\"ok\":true", absl::Seconds(10), 3);
  EXPECT_EQ(client.Count("HTTP/1.1 200"), 3);
}

// Bare LF line ends once got a 400 per request line, each on the same
// connection: a thousand answers for one connection, without a token.
TEST_F(GateTest, BareLineFeedsGetOneAnswerAndTheConnectionCloses) {
  for (const std::string& token : {std::string(), dlpd_->token()}) {
    RawClient client(dlpd_->address());
    const std::string auth = token.empty() ? "" : "Authorization: Bearer " + token + "\n";
    std::string requests;
    for (int i = 0; i < 1000; ++i) absl::StrAppend(&requests, "GET /v1/jobs HTTP/1.1\n", auth, "\n");
    client.Send(requests);  // the server may close before it took them all
    EXPECT_TRUE(client.ReadToEnd(absl::Seconds(10))) << "token: " << !token.empty();
    EXPECT_LE(client.Count("HTTP/1.1 "), 1) << client.ReadUntil("", absl::ZeroDuration());
    EXPECT_EQ(client.Count("HTTP/1.1 200"), 0);
  }
  EXPECT_EQ(Health(*dlpd_), 200);
}

// A head the gate passes but httplib cannot parse: answered 400, then closed,
// so nothing sent after it on the connection is read as a request.
TEST_F(GateTest, ARequestThatDoesNotParseClosesItsConnection) {
  RawClient client(dlpd_->address());
  const std::string head = GetRequest("/v1/health", dlpd_->token());
  ASSERT_TRUE(client.Send(absl::StrCat("NOT-A-REQUEST-LINE\r\nAuthorization: Bearer ",
                                       dlpd_->token(), "\r\n\r\n", head, head)));
  EXPECT_TRUE(client.ReadToEnd(absl::Seconds(10)));
  EXPECT_EQ(client.Count("HTTP/1.1 400"), 1) << client.ReadUntil("", absl::ZeroDuration());
  EXPECT_EQ(client.Count("HTTP/1.1 200"), 0);
}

// Over HTTPS the handshake happens in the gate too: stalled handshakes hold no thread.
TEST(GateTlsTest, HealthAnswersWhileHandshakesStall) {
  TempDir dir;
  const std::string cert = dir.Join("cert.pem"), key = dir.Join("key.pem");
  RunResult made =
      dlp::testing::Run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                         "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", cert});
  if (made.exit_code != 0) GTEST_SKIP() << "openssl cannot make a certificate: " << made.err;
  const std::string state = dir.Join("state");
  Dlpd dlpd(state, {"--tls-cert", cert, "--tls-key", key});
  std::string address, token;
  auto health = [&] {
    httplib::SSLClient client(address.substr(0, address.rfind(':')),
                              std::stoi(address.substr(address.rfind(':') + 1)));
    client.enable_server_certificate_verification(false);
    client.set_read_timeout(5, 0);
    client.set_bearer_token_auth(token.c_str());
    auto res = client.Get("/v1/health");
    return res ? res->status : 0;
  };
  ASSERT_TRUE(Eventually(
      [&] {
        address = Trimmed(ReadFileOrEmpty(state + "/dlpd.addr"));
        token = Trimmed(ReadFileOrEmpty(state + "/dlpd.token"));
        return !address.empty() && health() == 200;
      },
      absl::Seconds(20)))
      << dlpd.process().OutputSoFar();
  std::vector<std::unique_ptr<RawClient>> stalled;
  for (int i = 0; i < 100; ++i) {
    stalled.push_back(std::make_unique<RawClient>(address));
    ASSERT_TRUE(stalled.back()->Send(std::string(1, '\x16')));  // a TLS record's first byte
  }
  EXPECT_EQ(health(), 200);
  // A plain-HTTP request to the HTTPS port fails the handshake and is closed.
  RawClient plain(address);
  ASSERT_TRUE(plain.Send(GetRequest("/v1/health", token)));
  EXPECT_EQ(plain.Status(absl::Seconds(10)), 0);
}

}  // namespace
}  // namespace dlp::testing
