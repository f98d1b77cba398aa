// dlp-run starts once for every job: it links Abseil and libstdc++ statically
// (cmake/StaticLauncher.cmake), so that starting it loads only the C library (libc, libm, the loader),
// and carries no RUNPATH (whose empty entries would search the working
// directory, the job's, for libraries).
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "support/subprocess.h"

namespace dlp::testing {
namespace {

TEST(DlpRunLinkage, LoadsOnlyTheCLibraryAndSearchesNoWorkingDirectory) {
#ifdef DLP_TEST_SANITIZED
  GTEST_SKIP() << "sanitized builds link dlp-run against the shared libraries";
#endif
  const RunResult dynamic = dlp::testing::Run({"readelf", "--dynamic", BinPath("dlp-run")});
  ASSERT_EQ(dynamic.exit_code, 0) << dynamic.err;
  int needed = 0;
  for (absl::string_view line : absl::StrSplit(dynamic.out, '\n')) {
    if (absl::StrContains(line, "(NEEDED)")) {
      ++needed;
      EXPECT_TRUE(absl::StrContains(line, "[libc.so") || absl::StrContains(line, "[libm.so") ||
                  absl::StrContains(line, "[ld-linux"))
          << line;
    }
    EXPECT_FALSE(absl::StrContains(line, "(RUNPATH)") || absl::StrContains(line, "(RPATH)"))
        << line;
  }
  EXPECT_GE(needed, 1) << dynamic.out;
}

}  // namespace
}  // namespace dlp::testing
