// Text a job wrote, on its way to a terminal: no control character survives,
// UTF-8 does, and a cut never splits a character.
#include "contract/untrusted_text.h"

#include <gtest/gtest.h>

#include "contract/status.h"

namespace dlp::contract {
namespace {

TEST(UntrustedTextTest, EscapesEveryControlCharacter) {
  EXPECT_EQ(UntrustedText("\x1b]52;c;b3duZWQ=\x07", 100), "\\x1b]52;c;b3duZWQ=\\x07");
  EXPECT_EQ(UntrustedText("a\tb\nc\x7f", 100), "a\\x09b\\x0ac\\x7f");
  EXPECT_EQ(UntrustedText("a\tb\nc", 100, /*multiline=*/true), "a\tb\nc");
  EXPECT_EQ(UntrustedText("\xc2\x9b" "31m", 100), "\\x9b31m");  // C1 CSI in UTF-8
  EXPECT_EQ(UntrustedText("\x9b" "31m", 100), "\\x9b31m");      // and as a lone byte
  EXPECT_EQ(UntrustedText("caf\xc3\xa9 \xe2\x9c\x93", 100), "caf\xc3\xa9 \xe2\x9c\x93");
  EXPECT_EQ(UntrustedText("\xe2\x9c", 100), "\\xe2\\x9c");  // a cut-off character
}

TEST(UntrustedTextTest, CapsOnACharacterBoundary) {
  EXPECT_EQ(UntrustedText("abcdefgh", 8), "abcdefgh");
  EXPECT_EQ(UntrustedText("abcdefghi", 8), "abcde...");
  EXPECT_EQ(UntrustedText("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 6), "\xc3\xa9...");
  EXPECT_EQ(UntrustedText("\x1b\x1b\x1b", 9), "\\x1b...");
  EXPECT_EQ(UntrustedText(std::string(10000, 'x'), 256).size(), 256u);
}

TEST(UntrustedTextTest, TheStatusFileIsReadAsUntrustedText) {
  const std::string json = R"({"state": "Running", "reason": "\u001b[2J", "replicas": [)"
                           R"({"name": "worker-0", "host": ")" +
                           std::string(300, 'h') + R"(", "reason": "\u009b1m"}]})";
  absl::StatusOr<GroupStatus> status = ParseStatusJson(json, "status.json");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->reason, "\\x1b[2J");
  ASSERT_EQ(status->replicas.size(), 1u);
  EXPECT_EQ(status->replicas[0].host.size(), 256u);
  EXPECT_EQ(status->replicas[0].reason, "\\x9b1m");
}

}  // namespace
}  // namespace dlp::contract
