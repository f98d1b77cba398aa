// Signal names for messages, a number without a name said as a number.
#include "base/process/signal_name.h"

#include <gtest/gtest.h>

#include <csignal>

namespace dlp::base {
namespace {

TEST(SignalName, NamesKnownSignalsAndNumbersTheRest) {
  EXPECT_EQ(SignalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(SignalName(SIGTERM), "SIGTERM");
  EXPECT_EQ(SignalName(70), "signal 70");
}

}  // namespace
}  // namespace dlp::base
