// HttpClient over plain http:// (libdlp's own HTTP/1.1 on sockets) against a
// real cpp-httplib server on 127.0.0.1:0: requests as sent, bodies framed by
// Content-Length or chunked coding, NDJSON streams stopped early, error bodies,
// a refused connection, a server that never answers, and servers that never
// stop answering: a body past the cap, or one trickled past the timeout.
#include "http/http_client.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/chunked_routes.h"
#include "support/subprocess.h"

namespace dlp::internal {
namespace {

using ::dlp::testing::Eventually;

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.get_header_value("Authorization") + "|" + req.get_param_value("q") + "|" +
                          req.get_header_value("Host"),
                      "text/plain");
    });
    server_.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.get_header_value("Content-Type") + "|" + req.body, "text/plain");
    });
    server_.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_content(R"({"error":{"code":"NOT_FOUND","message":"no job 7"}})", "application/json");
    });
    // Lines split across chunks, as a log stream sends them, and the blank
    // heartbeat lines of a silent follow, which readers skip.
    dlp::testing::ServeChunks(server_, "/lines",
                              {"one\ntw", "o\n", "\n", "three\nfour\n", "\n", "tail"});
    // What a hostile or broken server does to a client: sends without end.
    dlp::testing::ServeEndless(server_, "/endless");
    // Or a byte every 20 ms for up to 30 s: never idle long enough for a
    // read timeout.
    server_.Get("/trickle", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("application/json", [](size_t offset,
                                                               httplib::DataSink& sink) {
        if (offset >= 1500) {
          sink.done();
          return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return sink.write(" ", 1);
      });
    });
    server_.Get("/hang", [this](const httplib::Request&, httplib::Response& res) {
      release_.wait();  // answers only once the test is over
      res.set_content("late", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    listener_ = std::thread([this] { server_.listen_after_bind(); });
    // Until it runs, stop() would not stop it.
    ASSERT_TRUE(Eventually([this] { return server_.is_running(); }, absl::Seconds(10)));
  }
  void TearDown() override {
    done_.set_value();
    server_.stop();
    listener_.join();
  }

  HttpClient Client(const std::string& token = "") const {
    return HttpClient(HttpEndpoint{"http://127.0.0.1:" + std::to_string(port_), token, "", false});
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread listener_;
  std::promise<void> done_;
  std::shared_future<void> release_ = done_.get_future().share();
};

TEST_F(HttpClientTest, GetSendsTokenQueryAndHost) {
  absl::StatusOr<std::string> body = Client("s3cret").Get("/echo", {{"q", "a b&c"}});
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(*body, "Bearer s3cret|a b&c|127.0.0.1:" + std::to_string(port_));
}

TEST_F(HttpClientTest, PostSendsJson) {
  absl::StatusOr<std::string> body = Client().Post("/echo", R"({"name":"x"})");
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(*body, R"(application/json|{"name":"x"})");
}

TEST_F(HttpClientTest, ErrorBodyNamesTheStatus) {
  absl::StatusOr<std::string> body = Client().Get("/missing");
  EXPECT_EQ(body.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(body.status().message(), "no job 7");
}

TEST_F(HttpClientTest, StreamLinesAcrossChunksAndStopsEarly) {
  std::vector<std::string> lines;
  auto all = [&](std::string_view line) {
    lines.emplace_back(line);
    return true;
  };
  ASSERT_TRUE(Client().StreamLines("/lines", {}, all, absl::Seconds(10)).ok());
  EXPECT_THAT(lines, ElementsAre("one", "two", "three", "four", "tail"));

  lines.clear();
  auto two = [&](std::string_view line) {
    lines.emplace_back(line);
    return lines.size() < 2;
  };
  ASSERT_TRUE(Client().StreamLines("/lines", {}, two, absl::Seconds(10)).ok());
  EXPECT_THAT(lines, ElementsAre("one", "two"));
}

TEST_F(HttpClientTest, RefusedConnectionIsAConnectFailure) {
  // A port that is bound but not listening refuses connections.
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  struct sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  HttpClient client(
      HttpEndpoint{"http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)), "", "", false});
  absl::StatusOr<std::string> body = client.Get("/echo");
  close(fd);
  EXPECT_EQ(body.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(body.status().message(), HasSubstr("connection refused"));
  EXPECT_TRUE(IsConnectFailure(body.status()));
}

TEST_F(HttpClientTest, SilentServerIsNoAnswerButNotAConnectFailure) {
  absl::StatusOr<std::string> body = Client().Get("/hang", {}, absl::Milliseconds(200));
  EXPECT_EQ(body.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(body.status().message(), HasSubstr("no answer"));
  EXPECT_FALSE(IsConnectFailure(body.status()));
}

// `dlp list` against such a server once grew to 16.8 GB.
TEST_F(HttpClientTest, ABodyPastTheCapIsAnErrorNotAnAllocation) {
  const absl::Time start = absl::Now();
  absl::StatusOr<std::string> body = Client().Get("/endless");
  EXPECT_EQ(body.status().code(), absl::StatusCode::kOutOfRange) << body.status();
  EXPECT_THAT(body.status().message(), HasSubstr("more than 64 MiB"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));
}

TEST_F(HttpClientTest, AnAnswerTrickledPastTheTimeoutIsAnError) {
  const absl::Time start = absl::Now();
  absl::StatusOr<std::string> body = Client().Get("/trickle", {}, absl::Seconds(1));
  EXPECT_EQ(body.status().code(), absl::StatusCode::kDeadlineExceeded) << body.status();
  EXPECT_THAT(body.status().message(), HasSubstr("within 1s"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

}  // namespace
}  // namespace dlp::internal
