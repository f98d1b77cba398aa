// TCP links between ranks open only between holders of the job's secret: a
// rank with another secret is refused, and a stranger who connects to a
// rank's listening port first is dropped while the rank goes on to accept
// its real peer.
#include "comm/transports/link_handshake.h"

#include <functional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

using ::testing::HasSubstr;

CommOptions Rank(int rank, const JobSecret& secret) {
  CommOptions o;
  o.rank = rank;
  o.size = 2;
  o.secret = secret;
  return o;
}

struct Listener {
  Fd fd;
  std::string addr;
};

Listener Listen() {
  auto fd = ListenTcp("127.0.0.1", 0);
  EXPECT_TRUE(fd.ok()) << fd.status();
  Listener l{std::move(*fd), ""};
  l.addr = absl::StrCat("127.0.0.1:", *BoundPort(l.fd.get()));
  return l;
}

// Rank 1 accepts one link; rank 0 (holding `connecting`) opens it. Each side's
// outcome: the link, or why there is none.
struct Outcome {
  absl::StatusOr<std::vector<std::pair<Fd, int>>> accepted;
  absl::StatusOr<Fd> connected;
};

Outcome Link(const JobSecret& accepting, const JobSecret& connecting,
             absl::Duration accept_for = absl::Seconds(10),
             const std::function<void(int port)>& before = {}) {
  Listener l = Listen();
  const CommOptions acceptor = Rank(1, accepting), connector = Rank(0, connecting);
  Outcome out;
  std::thread accept([&] {
    const absl::Time deadline = absl::Now() + accept_for;
    IncomingLinks in(acceptor, l.fd.get(), 1);
    absl::Status s = in.AcceptAll(deadline);
    out.accepted = s.ok() ? in.Finish(deadline) : s;
  });
  if (before) before(*BoundPort(l.fd.get()));
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  auto link = OutgoingLink::Connect(connector, l.addr, 1, deadline);
  absl::Status answered = link.ok() ? link->Answer(deadline) : link.status();
  out.connected = answered.ok() ? link->Finish(deadline) : answered;
  accept.join();
  return out;
}

TEST(LinkHandshake, RanksWithTheJobSecretConnect) {
  JobSecret secret = *JobSecret::Generate();
  Outcome o = Link(secret, secret);
  ASSERT_TRUE(o.connected.ok()) << o.connected.status();
  ASSERT_TRUE(o.accepted.ok()) << o.accepted.status();
  ASSERT_EQ(o.accepted->size(), 1u);
  EXPECT_EQ((*o.accepted)[0].second, 0);
}

TEST(LinkHandshake, RankWithAnotherSecretIsRefused) {
  Outcome o = Link(*JobSecret::Generate(), *JobSecret::Generate(), absl::Seconds(2));
  EXPECT_TRUE(absl::IsPermissionDenied(o.connected.status())) << o.connected.status();
  EXPECT_THAT(std::string(o.connected.status().message()), HasSubstr("refused the link"));
  // The accepting rank took no link from it: it was still waiting at its deadline.
  EXPECT_TRUE(absl::IsDeadlineExceeded(o.accepted.status())) << o.accepted.status();
}

TEST(LinkHandshake, StrangerIsDroppedAndTheRealPeerStillConnects) {
  JobSecret secret = *JobSecret::Generate();
  Fd stranger;
  Outcome o = Link(secret, secret, absl::Seconds(10), [&](int port) {
    // Connects first and speaks the old hello ("dlpr", rank 0) and more,
    // proving nothing.
    auto fd = ConnectTcp("127.0.0.1", port, absl::Now() + absl::Seconds(5));
    ASSERT_TRUE(fd.ok());
    const std::string hello = std::string("rpld\0\0\0\0", 8) + std::string(64, 'x');
    ASSERT_TRUE(SendAll(fd->get(), hello.data(), hello.size(), absl::Now() + absl::Seconds(5)).ok());
    stranger = std::move(*fd);
  });
  ASSERT_TRUE(o.connected.ok()) << o.connected.status();
  ASSERT_TRUE(o.accepted.ok()) << o.accepted.status();
  EXPECT_EQ((*o.accepted)[0].second, 0);
}

TEST(LinkHandshake, NoSecretNoLink) {
  Listener l = Listen();
  auto link = OutgoingLink::Connect(Rank(0, JobSecret()), l.addr, 1, absl::Now() + absl::Seconds(1));
  EXPECT_TRUE(absl::IsFailedPrecondition(link.status())) << link.status();
  const CommOptions options = Rank(1, JobSecret());  // IncomingLinks keeps a reference
  IncomingLinks in(options, l.fd.get(), 1);
  EXPECT_TRUE(absl::IsFailedPrecondition(in.AcceptAll(absl::Now() + absl::Seconds(1))));
}

TEST(LinkHandshake, RingOfRanksThatEachConnectAndAcceptNeverWaitsInACycle) {
  // Every rank connects to its next rank and accepts its previous one, as
  // ConnectRing does: the steps of link_handshake.h, all ranks at once.
  constexpr int kRanks = 4;
  JobSecret secret = *JobSecret::Generate();
  std::vector<Listener> listeners;
  for (int r = 0; r < kRanks; ++r) listeners.push_back(Listen());
  std::vector<absl::Status> results(kRanks);
  std::vector<std::thread> ranks;
  for (int r = 0; r < kRanks; ++r) {
    ranks.emplace_back([&, r] {
      CommOptions o = Rank(r, secret);
      o.size = kRanks;
      const int next = (r + 1) % kRanks, prev = (r + kRanks - 1) % kRanks;
      const absl::Time deadline = absl::Now() + absl::Seconds(10);
      results[r] = [&]() -> absl::Status {
        auto out = OutgoingLink::Connect(o, listeners[next].addr, next, deadline);
        if (!out.ok()) return out.status();
        IncomingLinks in(o, listeners[r].fd.get(), 1);
        if (absl::Status s = in.AcceptAll(deadline); !s.ok()) return s;
        if (absl::Status s = out->Answer(deadline); !s.ok()) return s;
        auto accepted = in.Finish(deadline);
        if (!accepted.ok()) return accepted.status();
        if ((*accepted)[0].second != prev) return absl::InternalError("wrong previous rank");
        return out->Finish(deadline).status();
      }();
    });
  }
  for (auto& t : ranks) t.join();
  for (int r = 0; r < kRanks; ++r) EXPECT_TRUE(results[r].ok()) << "rank " << r << ": " << results[r];
}

}  // namespace
}  // namespace dlp::runtime
