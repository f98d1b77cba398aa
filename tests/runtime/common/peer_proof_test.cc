// The handshake of common/peer_proof.h over real sockets: both sides holding
// the secret meet; any other secret, an unset one, or a peer that replays an
// old answer is refused by the side that checks it.
#include "common/peer_proof.h"

#include <thread>

#include "gtest/gtest.h"
#include "common/socket.h"

namespace dlp::runtime {
namespace {

JobSecret NewSecret() { return *JobSecret::Generate(); }

struct Outcome {
  absl::Status connecting, accepting;
};

// Runs both halves on a fresh loopback connection.
Outcome Meet(const JobSecret& connecting, const JobSecret& accepting,
             ProofPurpose connect_for = ProofPurpose::kCommLink,
             ProofPurpose accept_for = ProofPurpose::kCommLink) {
  auto listener = ListenTcp("127.0.0.1", 0);
  EXPECT_TRUE(listener.ok()) << listener.status();
  const int port = *BoundPort(listener->get());
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  Outcome out;
  std::thread acceptor([&] {
    auto fd = AcceptTcp(listener->get(), deadline);
    out.accepting = fd.ok() ? ProveAsAccepting(fd->get(), accepting, accept_for, deadline)
                            : fd.status();
  });
  auto fd = ConnectTcp("127.0.0.1", port, deadline);
  out.connecting = fd.ok() ? ProveAsConnecting(fd->get(), connecting, connect_for, deadline)
                           : fd.status();
  fd = Fd();  // the accepting side's refusal closes; so does this one's
  acceptor.join();
  return out;
}

TEST(PeerProof, SameSecretMeets) {
  JobSecret s = NewSecret();
  Outcome o = Meet(s, s);
  EXPECT_TRUE(o.connecting.ok()) << o.connecting;
  EXPECT_TRUE(o.accepting.ok()) << o.accepting;
}

TEST(PeerProof, AnotherSecretIsRefusedByBothSides) {
  Outcome o = Meet(NewSecret(), NewSecret());
  EXPECT_TRUE(absl::IsPermissionDenied(o.accepting)) << o.accepting;
  EXPECT_FALSE(o.connecting.ok());
}

TEST(PeerProof, AProofForTheStoreIsNoProofForALink) {
  JobSecret s = NewSecret();
  Outcome o = Meet(s, s, ProofPurpose::kStore, ProofPurpose::kCommLink);
  EXPECT_TRUE(absl::IsPermissionDenied(o.accepting)) << o.accepting;
}

TEST(PeerProof, UnsetSecretNeverMeets) {
  Outcome o = Meet(JobSecret(), JobSecret());
  EXPECT_TRUE(absl::IsFailedPrecondition(o.connecting)) << o.connecting;
  EXPECT_TRUE(absl::IsFailedPrecondition(o.accepting)) << o.accepting;
}

TEST(PeerProof, AnAnswerToAnotherChallengeIsRefused) {
  // An eavesdropper who saw one handshake cannot replay its answer: every
  // challenge carries a fresh nonce.
  JobSecret s = NewSecret();
  auto first = ProofChallenge::Start(s, ProofPurpose::kStore);
  auto second = ProofChallenge::Start(s, ProofPurpose::kStore);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first->challenge(), second->challenge());
  // A well-formed answer to `first`, computed as a rank would.
  auto listener = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(listener.ok());
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  std::string answer;
  std::thread acceptor([&] {
    auto fd = AcceptTcp(listener->get(), deadline);
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(SendAll(fd->get(), first->challenge().data(), kProofChallengeBytes, deadline).ok());
    answer.resize(kProofAnswerBytes);
    ASSERT_TRUE(RecvAll(fd->get(), answer.data(), answer.size(), deadline).ok());
  });
  auto fd = ConnectTcp("127.0.0.1", *BoundPort(listener->get()), deadline);
  ASSERT_TRUE(fd.ok());
  (void)ProveAsConnecting(fd->get(), s, ProofPurpose::kStore,
                          absl::Now() + absl::Milliseconds(200));
  acceptor.join();
  EXPECT_TRUE(first->Check(answer).has_value());
  EXPECT_FALSE(second->Check(answer).has_value());
  EXPECT_FALSE(first->Check(answer.substr(1)).has_value());
}

TEST(JobSecret, HexRoundTripAndBadText) {
  JobSecret s = NewSecret();
  ASSERT_EQ(s.Hex().size(), 64u);
  auto back = JobSecret::FromHex(s.Hex(), "DLP_RDZV_SECRET");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->bytes(), s.bytes());
  EXPECT_FALSE(JobSecret::FromHex("abc", "DLP_RDZV_SECRET").ok());
  auto bad = JobSecret::FromHex(std::string(63, 'a') + "g", "DLP_RDZV_SECRET");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()).find("aaaa"), std::string::npos)
      << "the message echoes the secret";
}

}  // namespace
}  // namespace dlp::runtime
