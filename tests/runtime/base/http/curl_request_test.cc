// PerformHttpRequest (libcurl) against a real cpp-httplib server on
// 127.0.0.1:0: method, headers and body as sent, any status a reply, lines to
// a sink and stopping early, the cap on what a server may send, and a
// refused connection.
#include "base/http/curl_request.h"

#include <httplib.h>

#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/chunked_routes.h"
#include "support/subprocess.h"

namespace dlp::base {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class CurlRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.status = 201;
      res.set_content(req.method + "|" + req.get_header_value("X-Who") + "|" +
                          req.get_header_value("Content-Type") + "|" + req.body,
                      "text/plain");
    });
    server_.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_content("not here\nat all\n", "text/plain");
    });
    dlp::testing::ServeChunks(server_, "/lines", {"one\ntw", "o\n", "three\n", "tail"});
    dlp::testing::ServeEndless(server_, "/endless");
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    listener_ = std::thread([this] { server_.listen_after_bind(); });
    ASSERT_TRUE(dlp::testing::Eventually([this] { return server_.is_running(); },
                                         absl::Seconds(10)));
  }
  void TearDown() override {
    server_.stop();
    listener_.join();
  }

  HttpRequest Request(const std::string& method, const std::string& path) const {
    HttpRequest request;
    request.method = method;
    request.url = "http://127.0.0.1:" + std::to_string(port_) + path;
    request.timeout = absl::Seconds(30);
    return request;
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread listener_;
};

TEST_F(CurlRequestTest, SendsMethodHeadersAndBody) {
  HttpRequest request = Request("POST", "/echo");
  request.headers = {"X-Who: me", "Content-Type: application/json"};
  request.body = R"({"a":1})";
  absl::StatusOr<HttpReply> reply = PerformHttpRequest(request, "the test server");
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->code, 201);
  EXPECT_EQ(reply->body, R"(POST|me|application/json|{"a":1})");
}

TEST_F(CurlRequestTest, AnErrorStatusIsAReplyKeptWholeEvenWithASink) {
  std::vector<std::string> lines;
  LineSink sink = [&lines](std::string_view line) {
    lines.emplace_back(line);
    return true;
  };
  HttpRequest request = Request("GET", "/missing");
  request.sink = &sink;
  absl::StatusOr<HttpReply> reply = PerformHttpRequest(request, "the test server");
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->code, 404);
  EXPECT_EQ(reply->body, "not here\nat all\n");
  EXPECT_TRUE(lines.empty());
}

TEST_F(CurlRequestTest, LinesGoToTheSinkWhichMayStopTheTransfer) {
  std::vector<std::string> lines;
  LineSink all = [&lines](std::string_view line) {
    lines.emplace_back(line);
    return true;
  };
  HttpRequest request = Request("GET", "/lines");
  request.sink = &all;
  absl::StatusOr<HttpReply> reply = PerformHttpRequest(request, "the test server");
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_THAT(lines, ElementsAre("one", "two", "three"));
  EXPECT_EQ(reply->body, "tail");  // the last line, without its newline
  EXPECT_FALSE(reply->stopped);

  lines.clear();
  LineSink first = [&lines](std::string_view line) {
    lines.emplace_back(line);
    return false;
  };
  request.sink = &first;
  reply = PerformHttpRequest(request, "the test server");
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_THAT(lines, ElementsAre("one"));
  EXPECT_TRUE(reply->stopped);
}

TEST_F(CurlRequestTest, ABodyPastTheCapIsRefused) {
  HttpRequest request = Request("GET", "/endless");
  request.max_body_bytes = 4 << 20;
  absl::StatusOr<HttpReply> reply = PerformHttpRequest(request, "the test server");
  EXPECT_TRUE(absl::IsResourceExhausted(reply.status())) << reply.status();
  EXPECT_THAT(std::string(reply.status().message()),
              HasSubstr("the test server sent more than 4194304 bytes"));
  // With a sink, a line past the cap.
  LineSink sink = [](std::string_view) { return true; };
  request.sink = &sink;
  reply = PerformHttpRequest(request, "the test server");
  EXPECT_TRUE(absl::IsResourceExhausted(reply.status())) << reply.status();
}

TEST_F(CurlRequestTest, ARefusedConnectionNamesThePeer) {
  HttpRequest request = Request("GET", "/");
  request.url = "http://127.0.0.1:1/";
  absl::StatusOr<HttpReply> reply = PerformHttpRequest(request, "the test server");
  EXPECT_TRUE(absl::IsUnavailable(reply.status())) << reply.status();
  EXPECT_THAT(std::string(reply.status().message()), HasSubstr("cannot reach the test server: "));
}

}  // namespace
}  // namespace dlp::base
