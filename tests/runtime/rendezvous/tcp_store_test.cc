// The rendezvous store over real sockets: a TcpStoreServer on 127.0.0.1:0 and
// clients in threads.
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rendezvous/store.h"

namespace dlp::runtime {
namespace {

using ::testing::HasSubstr;

const JobSecret& Secret() {
  static const JobSecret secret = *JobSecret::Generate();
  return secret;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = TcpStoreServer::Start("127.0.0.1", 0, Secret());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }
  std::unique_ptr<RendezvousStore> Connect() {
    auto store = ConnectTcpStore("127.0.0.1", server_->port(), Secret(), absl::Seconds(5));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }
  std::unique_ptr<TcpStoreServer> server_;
};

TEST_F(StoreTest, SetThenGet) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a->Set("r0/addr/0", std::string("10.0.0.1:5\0x", 12)).ok());
  auto value = b->Get("r0/addr/0", absl::Seconds(1));
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, std::string("10.0.0.1:5\0x", 12));  // binary-safe
}

TEST_F(StoreTest, GetBlocksUntilAnotherClientSets) {
  auto a = Connect();
  auto b = Connect();
  std::thread setter([&] {
    // The getter is parked on the server before this Set arrives (or not);
    // either order must give the value.
    EXPECT_TRUE(b->Set("late", "v").ok());
  });
  auto value = a->Get("late", absl::Seconds(10));
  setter.join();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, "v");
}

TEST_F(StoreTest, GetTimesOutNamingTheKey) {
  auto a = Connect();
  absl::Time start = absl::Now();
  auto value = a->Get("r0/addr/3", absl::Milliseconds(200));
  EXPECT_TRUE(absl::IsDeadlineExceeded(value.status())) << value.status();
  EXPECT_THAT(std::string(value.status().message()),
              HasSubstr("rendezvous: timed out after 200ms waiting for key r0/addr/3"));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(190));
  // The connection stays usable after a timeout.
  EXPECT_TRUE(a->Set("k", "v").ok());
  EXPECT_EQ(*a->Get("k", absl::Seconds(1)), "v");
}

TEST_F(StoreTest, WaitNamesTheFirstMissingKey) {
  auto a = Connect();
  ASSERT_TRUE(a->Set("x/0", "").ok());
  absl::Status s = a->Wait({"x/0", "x/1", "x/2"}, absl::Milliseconds(100));
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("waiting for key x/1"));
  ASSERT_TRUE(a->Set("x/1", "").ok());
  ASSERT_TRUE(a->Set("x/2", "").ok());
  EXPECT_TRUE(a->Wait({"x/0", "x/1", "x/2"}, absl::Seconds(1)).ok());
}

TEST_F(StoreTest, AddIsAtomicAcrossClients) {
  constexpr int kClients = 8, kAdds = 50;
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&] {
      auto s = Connect();
      for (int j = 0; j < kAdds; ++j) ASSERT_TRUE(s->Add("counter", 1).ok());
    });
  }
  for (auto& t : threads) t.join();
  auto store = Connect();
  EXPECT_EQ(*store->Add("counter", 0), kClients * kAdds);
  ASSERT_TRUE(store->Set("text", "abc").ok());
  EXPECT_FALSE(store->Add("text", 1).ok());
}

TEST_F(StoreTest, ManyParkedWaitersAllWake) {
  constexpr int kClients = 16;
  std::vector<std::thread> threads;
  std::atomic<int> woken{0};
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&] {
      auto s = Connect();
      if (s->Wait({"go"}, absl::Seconds(20)).ok()) ++woken;
    });
  }
  auto setter = Connect();
  ASSERT_TRUE(setter->Set("go", "1").ok());
  for (auto& t : threads) t.join();
  EXPECT_EQ(woken.load(), kClients);
}

TEST(StoreConnectTest, ClientRetriesUntilServerStarts) {
  // Find a free port, then start the server on it after the client began.
  int port;
  {
    auto probe = TcpStoreServer::Start("127.0.0.1", 0, Secret());
    ASSERT_TRUE(probe.ok());
    port = (*probe)->port();
  }
  std::unique_ptr<TcpStoreServer> server;
  std::thread starter([&] {
    auto s = TcpStoreServer::Start("127.0.0.1", port, Secret());
    if (s.ok()) server = std::move(*s);
  });
  auto store = ConnectTcpStore("127.0.0.1", port, Secret(), absl::Seconds(10));
  starter.join();
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->Set("a", "b").ok());
}

TEST(StoreConnectTest, UnreachableStoreFailsWithinTimeout) {
  int port;
  {
    auto probe = TcpStoreServer::Start("127.0.0.1", 0, Secret());
    ASSERT_TRUE(probe.ok());
    port = (*probe)->port();
  }
  auto store = ConnectTcpStore("127.0.0.1", port, Secret(), absl::Milliseconds(300));
  EXPECT_FALSE(store.ok());
  EXPECT_THAT(std::string(store.status().message()), HasSubstr("cannot reach the store"));
}

TEST(StoreConnectTest, ServerStopEndsClientCalls) {
  auto server = TcpStoreServer::Start("127.0.0.1", 0, Secret());
  ASSERT_TRUE(server.ok());
  auto store = ConnectTcpStore("127.0.0.1", (*server)->port(), Secret(), absl::Seconds(5));
  ASSERT_TRUE(store.ok());
  (*server)->Stop();
  server->reset();
  absl::Status s = (*store)->Wait({"never"}, absl::Seconds(30));
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
}

}  // namespace
}  // namespace dlp::runtime
