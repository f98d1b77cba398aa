// The store's caps (StoreLimits): a value, a key or a whole store over its cap
// is refused with ResourceExhausted, nothing of it is stored, and the store
// (and the refused client's connection) keeps serving.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include <optional>

#include "common/peer_proof.h"
#include "common/socket.h"
#include "gtest/gtest.h"
#include "rendezvous/store.h"
#include "rendezvous/store_protocol.h"

namespace dlp::runtime {
namespace {

using ::testing::HasSubstr;

class StoreLimitsTest : public ::testing::Test {
 protected:
  void Start(const StoreLimits& limits) {
    auto secret = JobSecret::Generate();
    ASSERT_TRUE(secret.ok()) << secret.status();
    secret_ = *secret;
    auto server = TcpStoreServer::Start("127.0.0.1", 0, *secret_, limits);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    auto store = ConnectTcpStore("127.0.0.1", server_->port(), *secret_, absl::Seconds(5));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  // A reply's payload, read by a client that speaks the wire itself.
  static std::string ReadReply(int fd) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    char length[4] = {};
    EXPECT_TRUE(RecvAll(fd, length, sizeof length, deadline).ok());
    std::string payload(store_wire::DecodeLength(length), '\0');
    EXPECT_TRUE(RecvAll(fd, payload.data(), payload.size(), deadline).ok());
    return payload;
  }

  static void Send(int fd, const store_wire::Writer& request) {
    const std::string frame = request.Frame();
    EXPECT_TRUE(SendAll(fd, frame.data(), frame.size(), absl::Now() + absl::Seconds(10)).ok());
  }

  std::optional<JobSecret> secret_;
  std::unique_ptr<TcpStoreServer> server_;
  std::unique_ptr<RendezvousStore> store_;
};

TEST_F(StoreLimitsTest, ValueOverItsCapIsRefused) {
  ASSERT_NO_FATAL_FAILURE(
      Start({.max_key_bytes = 64, .max_value_bytes = 1000, .max_total_bytes = 1 << 20}));
  EXPECT_TRUE(store_->Set("fits", std::string(1000, 'x')).ok());
  absl::Status s = store_->Set("big", std::string(1001, 'x'));
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("over the store's cap of 1000"));
  EXPECT_TRUE(absl::IsDeadlineExceeded(store_->Get("big", absl::Milliseconds(50)).status()));
  absl::Status key = store_->Set(std::string(65, 'k'), "v");
  EXPECT_TRUE(absl::IsResourceExhausted(key)) << key;
  // The same connection goes on.
  EXPECT_TRUE(store_->Set("after", "ok").ok());
  EXPECT_EQ(*store_->Get("after", absl::Seconds(1)), "ok");
}

TEST_F(StoreLimitsTest, RequestLargerThanAnyCapIsSkippedUnread) {
  ASSERT_NO_FATAL_FAILURE(
      Start({.max_key_bytes = 16, .max_value_bytes = 1000, .max_total_bytes = 1 << 20}));
  // Many times any request the caps allow: the server drops it as it arrives.
  absl::Status s = store_->Set("huge", std::string(8 << 20, 'x'));
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("bytes is over the store's cap"));
  EXPECT_TRUE(store_->Set("after", "ok").ok());
  EXPECT_EQ(*store_->Get("after", absl::Seconds(1)), "ok");
}

TEST_F(StoreLimitsTest, FullStoreRefusesNewBytesAndKeepsServing) {
  ASSERT_NO_FATAL_FAILURE(
      Start({.max_key_bytes = 64, .max_value_bytes = 100, .max_total_bytes = 1000}));
  int stored = 0;
  absl::Status s;
  for (int i = 0; i < 100 && s.ok(); ++i) {
    s = store_->Set(absl::StrCat("k", i), std::string(98, 'v'));
    if (s.ok()) ++stored;
  }
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("the store is full"));
  EXPECT_EQ(stored, 1000 / 100);  // "kN" + 98 bytes = 100 for N < 10
  EXPECT_TRUE(absl::IsResourceExhausted(store_->Add("new-counter", 1).status()));
  // What is there stays readable, and a key may be overwritten within the cap.
  EXPECT_EQ(*store_->Get("k3", absl::Seconds(1)), std::string(98, 'v'));
  EXPECT_TRUE(store_->Set("k3", "short").ok());
  EXPECT_TRUE(store_->Set("k10", "x").ok());  // the bytes k3 freed
  auto other = ConnectTcpStore("127.0.0.1", server_->port(), *secret_, absl::Seconds(5));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(*(*other)->Get("k10", absl::Seconds(1)), "x");
}

// A GET/WAIT timeout from the wire is held to [0, forever]: a negative one
// answers at once, the largest one waits like forever (its deadline once
// overflowed the server's poll timeout).
TEST_F(StoreLimitsTest, WireTimeoutsOutsideTheRangeAreHeldToIt) {
  ASSERT_NO_FATAL_FAILURE(
      Start({.max_key_bytes = 64, .max_value_bytes = 100, .max_total_bytes = 1000}));
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  auto fd = ConnectTcp("127.0.0.1", server_->port(), deadline);
  ASSERT_TRUE(fd.ok()) << fd.status();
  ASSERT_TRUE(ProveAsConnecting(fd->get(), *secret_, ProofPurpose::kStore, deadline).ok());
  using store_wire::Writer;
  Send(fd->get(), Writer().U8(store_wire::kWait).I64(INT64_MIN).U32(1).Str("k"));
  EXPECT_EQ(store_wire::Reader(ReadReply(fd->get())).U8(), store_wire::kTimeout);
  // Parked "forever" until another rank sets the key.
  Send(fd->get(), Writer().U8(store_wire::kGet).I64(INT64_MAX).Str("later"));
  EXPECT_TRUE(absl::IsDeadlineExceeded(store_->Get("later", absl::Milliseconds(50)).status()));
  ASSERT_TRUE(store_->Set("later", "v").ok());
  const std::string payload = ReadReply(fd->get());
  store_wire::Reader reply(payload);
  EXPECT_EQ(reply.U8(), store_wire::kOk);
  EXPECT_EQ(reply.Str(), "v");
}

}  // namespace
}  // namespace dlp::runtime
