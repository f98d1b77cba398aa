// How the programs that run inside a job find their libraries.
// - dlp-run starts once for every job: it links Abseil and libstdc++
//   statically (cmake/StaticLauncher.cmake), so that starting it loads only
//   the C library (libc, libm, the loader), and carries no RUNPATH.
// - fmnist-train opens cuBLAS only for a GPU run (trainer/nn/cuda_blas.h).
// - No program's RUNPATH has an empty entry (CMake pads build RUNPATHs for
//   the install-time rewrite): the loader would take it as the working
//   directory, the job's, and load libraries from there.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "support/subprocess.h"

namespace dlp::testing {
namespace {

// readelf's lines of `program`'s dynamic section with `tag`, e.g. "(NEEDED)".
std::vector<std::string> DynamicEntries(const std::string& program, absl::string_view tag) {
  const RunResult dynamic = Run({"readelf", "--dynamic", BinPath(program)});
  EXPECT_EQ(dynamic.exit_code, 0) << dynamic.err;
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(dynamic.out, '\n')) {
    if (absl::StrContains(line, tag)) out.emplace_back(line);
  }
  return out;
}

TEST(ProgramLinkage, DlpRunLoadsOnlyTheCLibraryAndHasNoRunpath) {
#ifdef DLP_TEST_SANITIZED
  GTEST_SKIP() << "sanitized builds link dlp-run against the shared libraries";
#endif
  const std::vector<std::string> needed = DynamicEntries("dlp-run", "(NEEDED)");
  EXPECT_FALSE(needed.empty());
  for (const std::string& line : needed) {
    EXPECT_TRUE(absl::StrContains(line, "[libc.so") || absl::StrContains(line, "[libm.so") ||
                absl::StrContains(line, "[ld-linux"))
        << line;
  }
  EXPECT_TRUE(DynamicEntries("dlp-run", "PATH)").empty());  // RUNPATH or RPATH
}

// Every rank of a job starts fmnist-train; cuBLAS's initialisers take 0.45 s of
// a start, so the trainer opens it only when it computes on a GPU.
TEST(ProgramLinkage, TheTrainerDoesNotLoadCublasAtStart) {
  for (const std::string& line : DynamicEntries("fmnist-train", "(NEEDED)")) {
    EXPECT_FALSE(absl::StrContains(line, "libcublas")) << line;
  }
}

TEST(ProgramLinkage, NoRunpathSearchesTheWorkingDirectory) {
  for (const char* program : {"dlp-run", "fmnist-train", "dlp", "dlpd"}) {
    for (const std::string& line : DynamicEntries(program, "PATH)")) {
      const size_t open = line.find('['), close = line.rfind(']');
      ASSERT_NE(open, std::string::npos) << line;
      for (absl::string_view dir :
           absl::StrSplit(absl::string_view(line).substr(open + 1, close - open - 1), ':')) {
        EXPECT_TRUE(absl::StartsWith(dir, "/")) << program << ": " << line;
      }
    }
  }
}

}  // namespace
}  // namespace dlp::testing
