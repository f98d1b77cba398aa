#include "server/http/request_limits.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace dlp::server {
namespace {

using State = HeadScanner::State;

TEST(HeadScannerTest, FindsTheHeadHoweverItIsSplit) {
  const std::string head = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string bytes = head + "BODY";
  RequestLimits limits;
  HeadScanner scanner;
  for (size_t n = 0; n < head.size(); ++n) {
    ASSERT_EQ(scanner.Scan(absl::string_view(bytes).substr(0, n), limits), State::kIncomplete) << n;
  }
  ASSERT_EQ(scanner.Scan(bytes, limits), State::kComplete);
  EXPECT_EQ(scanner.head_size(), head.size());
}

// httplib does not parse such a head, and each bare-LF line it left behind
// was once read as one more request on the same connection.
TEST(HeadScannerTest, RefusesBareNewlines) {
  RequestLimits limits;
  for (const char* head : {"GET / HTTP/1.1\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\n\n",
                           "\nGET / HTTP/1.1\r\n\r\n"}) {
    HeadScanner scanner;
    EXPECT_EQ(scanner.Scan(head, limits), State::kBareLineFeed) << head;
  }
  HeadScanner blank_first;  // a CRLF before the request line is allowed (RFC 9112 2.2)
  EXPECT_EQ(blank_first.Scan("\r\nGET / HTTP/1.1\r\n\r\n", limits), State::kComplete);
}

TEST(HeadScannerTest, RefusesTooManyHeaderLines) {
  RequestLimits limits;
  limits.max_header_count = 3;
  std::string head = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 3; ++i) absl::StrAppend(&head, "H", i, ": v\r\n");
  HeadScanner ok;
  EXPECT_EQ(ok.Scan(head + "\r\n", limits), State::kComplete);
  HeadScanner too_many;
  EXPECT_EQ(too_many.Scan(head + "H3: v\r\n", limits), State::kTooLarge);
}

TEST(HeadScannerTest, RefusesTooManyBytesEvenWithoutANewline) {
  RequestLimits limits;
  limits.max_head_bytes = 100;
  HeadScanner scanner;
  EXPECT_EQ(scanner.Scan(std::string(99, 'G'), limits), State::kIncomplete);
  EXPECT_EQ(scanner.Scan(std::string(100, 'G'), limits), State::kTooLarge);
}

TEST(ParseHeadFieldsTest, ReadsWhatTheGateChecks) {
  HeadFields f = ParseHeadFields(
      "POST /v1/jobs HTTP/1.1\r\nauthorization:  Bearer abc \r\ncontent-length: 12\r\n\r\n");
  EXPECT_EQ(f.authorization, "Bearer abc");
  EXPECT_EQ(f.target, "/v1/jobs");
  EXPECT_TRUE(f.cookie.empty());
  EXPECT_TRUE(f.has_content_length);
  EXPECT_EQ(f.content_length, 12u);
  EXPECT_FALSE(f.bad_content_length);
  EXPECT_FALSE(f.chunked);
}

TEST(ParseHeadFieldsTest, JoinsCookieLines) {
  HeadFields f = ParseHeadFields(
      "GET /v1/jobs?limit=2 HTTP/1.1\r\nCookie: a=1\r\ncookie: dlp_session=x\r\n\r\n");
  EXPECT_EQ(f.target, "/v1/jobs?limit=2");
  EXPECT_EQ(f.cookie, "a=1; dlp_session=x");
}

TEST(ParseHeadFieldsTest, FlagsBadOrConflictingLengthsAndChunking) {
  EXPECT_TRUE(ParseHeadFields("P / HTTP/1.1\r\nContent-Length: -1\r\n\r\n").bad_content_length);
  EXPECT_TRUE(ParseHeadFields("P / HTTP/1.1\r\nContent-Length: 1e9\r\n\r\n").bad_content_length);
  EXPECT_TRUE(ParseHeadFields("P / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n")
                  .bad_content_length);
  EXPECT_TRUE(ParseHeadFields("P / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
                  .bad_content_length);
  EXPECT_TRUE(ParseHeadFields("P / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").chunked);
  EXPECT_FALSE(ParseHeadFields("P / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n").chunked);
}

}  // namespace
}  // namespace dlp::server
