// What a job writes cannot drive the terminal that `dlp describe` and
// `dlp logs` print it on: controls show as escapes, text stays as it is.
#include "terminal_text.h"

#include <gtest/gtest.h>

namespace dlp::cli {
namespace {

TEST(TerminalSafeTest, EscapesC0AndC1ControlsButTabAndNewline) {
  // OSC 52: sets the clipboard of some terminals to "hi".
  EXPECT_EQ(TerminalSafe("\x1b]52;c;aGk=\x07"), "\\x1b]52;c;aGk=\\x07");
  EXPECT_EQ(TerminalSafe("a\rb\bc\x7f"), "a\\x0db\\x08c\\x7f");
  EXPECT_EQ(TerminalSafe(std::string("nul\0", 4)), "nul\\x00");
  // CSI as a C1 control in UTF-8 (U+009B), and NEL (U+0085).
  EXPECT_EQ(TerminalSafe("\xc2\x9b" "31m red \xc2\x85"), "\\u009b31m red \\u0085");
}

TEST(TerminalSafeTest, LeavesTextTabsNewlinesAndOtherCharactersAlone) {
  EXPECT_EQ(TerminalSafe("loss=0.5\tstep=1\nnext"), "loss=0.5\tstep=1\nnext");
  // U+00A0 and U+00E9 start with the same lead byte as the C1 controls.
  EXPECT_EQ(TerminalSafe("caf\xc3\xa9 \xc2\xa0 \xe2\x9c\x93 \\x1b"),
            "caf\xc3\xa9 \xc2\xa0 \xe2\x9c\x93 \\x1b");
  EXPECT_EQ(TerminalSafe(""), "");
}

}  // namespace
}  // namespace dlp::cli
