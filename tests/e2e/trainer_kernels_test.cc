// The trainer's GEMM is cloned for AVX-512 and AVX2+FMA (trainer/nn/cpu_gemm.cc); each
// clone must carry the packed FMAs of its ISA. Kernels left out of line are
// compiled once, for the baseline, and the clones then call SSE2 code at a
// third of the speed while every test still passes: only the machine code shows it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "support/subprocess.h"

namespace dlp::testing {
namespace {

// The names of fmnist-train's functions cloned for x86-64-v3 and v4 (GCC's target_clones).
std::vector<std::string> GemmClones(const std::string& program) {
  const RunResult symbols = Run({"nm", program});
  EXPECT_EQ(symbols.exit_code, 0) << symbols.err;
  std::vector<std::string> clones;
  for (absl::string_view line : absl::StrSplit(symbols.out, '\n')) {
    const std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (fields.size() != 3 || !absl::StrContains(fields[2], "Gemm")) continue;
    if (absl::EndsWith(fields[2], ".arch_x86_64_v3") ||
        absl::EndsWith(fields[2], ".arch_x86_64_v4")) {
      clones.push_back(fields[2]);
    }
  }
  return clones;
}

TEST(TrainerKernels, EveryGemmCloneUsesThePackedFmaOfItsInstructionSet) {
  const std::string program = BinPath("fmnist-train");
  const std::vector<std::string> clones = GemmClones(program);
  if (clones.empty()) GTEST_SKIP() << "no x86-64 clones in this build (not GCC on x86-64)";
  for (const std::string& clone : clones) {
    const RunResult code =
        testing::Run({"objdump", "-d", "--no-show-raw-insn", "--disassemble=" + clone, program});
    ASSERT_EQ(code.exit_code, 0) << code.err;
    int packed_fmas = 0;
    for (absl::string_view line : absl::StrSplit(code.out, '\n')) {
      if (absl::StrContains(line, "vfmadd") && absl::StrContains(line, "ps ")) ++packed_fmas;
    }
    EXPECT_GT(packed_fmas, 0) << clone << " has no packed FMA: its kernels were not inlined";
  }
}

}  // namespace
}  // namespace dlp::testing
