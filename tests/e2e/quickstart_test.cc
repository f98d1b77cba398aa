// scripts/quickstart.sh builds the `programs` target only: the four programs
// the main job runs, and none of the tests or benchmarks (scripts/test.sh builds
// those). Asked of the build tree's own Ninja files, without building anything.
#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/subprocess.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

TEST(Quickstart, ProgramsTargetBuildsTheMainJobAndNoTests) {
  if (!std::filesystem::exists(std::string(DLP_BUILD_DIR) + "/build.ninja")) {
    GTEST_SKIP() << "the build tree was not generated for Ninja";
  }
  RunResult commands =
      dlp::testing::Run({"ninja", "-C", DLP_BUILD_DIR, "-t", "commands", "programs"});
  ASSERT_EQ(commands.exit_code, 0) << commands.err;
  for (const char* program : {"bin/dlp ", "bin/dlpd ", "bin/dlp-run ", "bin/fmnist-train "}) {
    EXPECT_THAT(commands.out, HasSubstr(std::string("-o ") + program)) << program;
  }
  for (absl::string_view line : absl::StrSplit(commands.out, '\n')) {
    EXPECT_FALSE(absl::StrContains(line, "gtest") || absl::StrContains(line, "/tests/") ||
                 absl::StrContains(line, "/bench/"))
        << line.substr(0, 300);
  }
  RunResult script = dlp::testing::Run({"grep", "-c", "BUILD_TARGETS=programs scripts/build.sh",
                                        std::string(DLP_SOURCE_DIR) + "/scripts/quickstart.sh"});
  EXPECT_EQ(script.out, "1\n") << "quickstart.sh no longer builds the programs target";
}

}  // namespace
}  // namespace dlp::testing
