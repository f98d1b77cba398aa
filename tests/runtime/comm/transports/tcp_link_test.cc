// The TCP receive side at the peer's close: every byte sent before the close
// is delivered, down to a last 4-byte element, and only then is the close an
// error. (A peer that finishes its last allreduce closes at once.)
#include <sys/socket.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "comm/transports/tcp_link.h"
#include "common/socket.h"

namespace dlp::runtime {
namespace {

struct Pair {
  Fd sender, receiver;
};

Pair Connect() {
  auto listener = ListenTcp("127.0.0.1", 0);
  EXPECT_TRUE(listener.ok()) << listener.status();
  auto port = BoundPort(listener->get());
  auto deadline = absl::Now() + absl::Seconds(10);
  auto sender = ConnectTcp("127.0.0.1", *port, deadline);
  auto receiver = AcceptTcp(listener->get(), deadline);
  EXPECT_TRUE(sender.ok() && receiver.ok());
  return {std::move(*sender), std::move(*receiver)};
}

// Peeks until `want` bytes are buffered (the data may arrive in pieces).
absl::StatusOr<absl::Span<const char>> PeekAtLeast(RecvLink& link, size_t want) {
  absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (true) {
    auto data = link.Peek();
    if (!data.ok() || data->size() >= want || absl::Now() > deadline) return data;
  }
}

TEST(TcpRecvLinkTest, BytesBeforeTheCloseAreDeliveredDownToTheLastElement) {
  Pair p = Connect();
  std::string payload(262148, 'x');  // one 256 KiB chunk and one float
  ASSERT_EQ(send(p.sender.get(), payload.data(), payload.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(payload.size()));
  p.sender = Fd();  // the peer closes right after its last send

  auto link = MakeTcpRecvLink(std::move(p.receiver), 1);
  auto all = PeekAtLeast(*link, payload.size());
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), payload.size());
  link->Consume(262144);
  auto last = link->Peek();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(last->size(), 4u);
  link->Consume(4);
  auto after = link->Peek();
  ASSERT_FALSE(after.ok());
  EXPECT_NE(after.status().message().find("rank 1 closed the connection"), std::string::npos)
      << after.status();
}

TEST(TcpRecvLinkTest, ATornElementLeftAtTheCloseFailsRatherThanSpins) {
  Pair p = Connect();
  const char two[2] = {1, 2};
  ASSERT_EQ(send(p.sender.get(), two, 2, MSG_NOSIGNAL), 2);
  p.sender = Fd();
  auto link = MakeTcpRecvLink(std::move(p.receiver), 3);
  auto first = PeekAtLeast(*link, 2);
  ASSERT_TRUE(first.ok()) << first.status();
  // A 4-byte element cannot be taken from 2 bytes: nothing is consumed.
  absl::Status status = absl::OkStatus();
  for (int i = 0; i < 3 && status.ok(); ++i) status = link->Peek().status();
  EXPECT_FALSE(status.ok());
}

}  // namespace
}  // namespace dlp::runtime
