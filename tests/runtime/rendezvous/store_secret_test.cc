// Only a holder of the job's secret may use the store: a client without it
// (any local user who found the port) or with another job's is refused before
// the store reads a request from it, and the store keeps serving the ranks.
#include <poll.h>
#include <sys/socket.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/peer_proof.h"
#include "common/socket.h"
#include "rendezvous/store.h"
#include "rendezvous/store_protocol.h"

namespace dlp::runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

JobSecret NewSecret() {
  auto secret = JobSecret::Generate();
  EXPECT_TRUE(secret.ok()) << secret.status();
  return *secret;
}

// Everything a connection receives until the server closes it (or 5 s pass).
std::string ReadUntilClosed(int fd) {
  std::string got;
  char buf[4096];
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (PollFd(fd, POLLIN, deadline).ok()) {
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

std::string Frame(const store_wire::Writer& w) { return w.Frame(); }

class StoreSecretTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = TcpStoreServer::Start("127.0.0.1", 0, secret_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }
  std::unique_ptr<RendezvousStore> Rank() {
    auto store = ConnectTcpStore("127.0.0.1", server_->port(), secret_, absl::Seconds(5));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }
  // A raw connection that speaks the store's requests without any proof.
  Fd Stranger() {
    auto fd = ConnectTcp("127.0.0.1", server_->port(), absl::Now() + absl::Seconds(5));
    EXPECT_TRUE(fd.ok()) << fd.status();
    return fd.ok() ? std::move(*fd) : Fd();
  }

  JobSecret secret_ = NewSecret();
  std::unique_ptr<TcpStoreServer> server_;
};

TEST_F(StoreSecretTest, ClientWithoutTheSecretCannotWrite) {
  Fd stranger = Stranger();
  using namespace store_wire;  // NOLINT
  // (Longer than a proof: the server judges it at once.)
  const std::string set =
      Frame(Writer().U8(kSet).Str("r0/comm0/tcp/1").Str("6.6.6.6:1" + std::string(100, ' ')));
  const std::string add = Frame(Writer().U8(kAdd).Str("r0/barrier").I64(1));
  ASSERT_TRUE(SendAll(stranger.get(), set.data(), set.size(), absl::Now() + absl::Seconds(5)).ok());
  (void)SendAll(stranger.get(), add.data(), add.size(), absl::Now() + absl::Seconds(5));
  // The stranger hears the challenge and then the close, never an OK.
  std::string heard = ReadUntilClosed(stranger.get());
  EXPECT_EQ(heard.size(), kProofChallengeBytes) << "the server answered a request";

  auto rank = Rank();
  ASSERT_NE(rank, nullptr);
  auto value = rank->Get("r0/comm0/tcp/1", absl::Milliseconds(100));
  EXPECT_TRUE(absl::IsDeadlineExceeded(value.status())) << "the stranger's SET was stored";
  auto counter = rank->Add("r0/barrier", 0);
  ASSERT_TRUE(counter.ok()) << counter.status();
  EXPECT_EQ(*counter, 0) << "the stranger's ADD was counted";
}

TEST_F(StoreSecretTest, ClientWithoutTheSecretCannotRead) {
  auto rank = Rank();
  ASSERT_NE(rank, nullptr);
  ASSERT_TRUE(rank->Set("r0/comm0/shm/0", "/dlp-segment-name-to-hide").ok());
  Fd stranger = Stranger();
  using namespace store_wire;  // NOLINT
  // A SET longer than a proof first, so that the server judges at once.
  const std::string requests =
      Frame(Writer().U8(kSet).Str("padding").Str(std::string(100, ' '))) +
      Frame(Writer().U8(kGet).I64(1000).Str("r0/comm0/shm/0"));
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  ASSERT_TRUE(SendAll(stranger.get(), requests.data(), requests.size(), deadline).ok());
  std::string heard = ReadUntilClosed(stranger.get());
  EXPECT_THAT(heard, Not(HasSubstr("dlp-segment-name-to-hide")));
  EXPECT_EQ(heard.size(), kProofChallengeBytes);
  // The ranks are served as before.
  EXPECT_EQ(*rank->Get("r0/comm0/shm/0", absl::Seconds(1)), "/dlp-segment-name-to-hide");
}

TEST_F(StoreSecretTest, ClientWithAnotherJobsSecretIsRefused) {
  auto rank = Rank();
  ASSERT_NE(rank, nullptr);
  ASSERT_TRUE(rank->Set("r0/comm0/host/0", "h0").ok());
  auto other = ConnectTcpStore("127.0.0.1", server_->port(), NewSecret(), absl::Seconds(5));
  EXPECT_TRUE(absl::IsPermissionDenied(other.status())) << other.status();
  EXPECT_THAT(std::string(other.status().message()), HasSubstr("did not accept this rank"));
  EXPECT_EQ(*rank->Get("r0/comm0/host/0", absl::Seconds(1)), "h0");
}

TEST_F(StoreSecretTest, StoreThatHoldsAnotherSecretIsNotBelieved) {
  // A rank never talks to a store that cannot prove the job's secret either.
  auto other = TcpStoreServer::Start("127.0.0.1", 0, NewSecret());
  ASSERT_TRUE(other.ok()) << other.status();
  auto store = ConnectTcpStore("127.0.0.1", (*other)->port(), secret_, absl::Seconds(5));
  EXPECT_TRUE(absl::IsPermissionDenied(store.status())) << store.status();
}

TEST_F(StoreSecretTest, FloodOfIdleStrangersDoesNotKeepRanksOut) {
  std::vector<Fd> strangers;
  for (int i = 0; i < 200; ++i) strangers.push_back(Stranger());
  auto rank = Rank();
  ASSERT_NE(rank, nullptr);
  EXPECT_TRUE(rank->Set("k", "v").ok());
  EXPECT_EQ(*rank->Get("k", absl::Seconds(1)), "v");
}

}  // namespace
}  // namespace dlp::runtime
