// dlp-run --bind-to core through the real binary: each local rank runs on its
// own share of the CPUs dlp-run may use, remote ranks (through --exec-rank)
// bind themselves alike, and ranks beyond the CPUs are left unbound.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/cpu_binding.h"
#include "launch_test_util.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// "0-2,5" as in /proc/self/status's Cpus_allowed_list.
std::vector<int> ParseCpuList(absl::string_view text) {
  std::vector<int> cpus;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> ends = absl::StrSplit(part, '-');
    int first = 0, last = 0;
    if (!absl::SimpleAtoi(ends[0], &first)) return {};
    if (!absl::SimpleAtoi(ends.size() > 1 ? ends[1] : ends[0], &last)) return {};
    for (int c = first; c <= last; ++c) cpus.push_back(c);
  }
  return cpus;
}

// Each rank prints "<rank> <its allowed CPUs>"; returns them by rank.
constexpr char kPrintCpus[] =
    "echo \"cpus $RANK $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)\"";

std::map<int, std::vector<int>> CpusByRank(const std::string& out) {
  std::map<int, std::vector<int>> by_rank;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("cpus ");
    if (at == std::string::npos) continue;
    std::vector<std::string> words = absl::StrSplit(line.substr(at + 5), ' ');
    int rank = 0;
    if (words.size() == 2 && absl::SimpleAtoi(words[0], &rank)) {
      by_rank[rank] = ParseCpuList(words[1]);
    }
  }
  return by_rank;
}

TEST(BindTo, EachLocalRankRunsOnItsShareOfTheCpus) {
  const std::vector<int> allowed = runtime::AllowedCpus();
  const int n = std::min<int>(2, static_cast<int>(allowed.size()));
  RunResult r =
      ::dlp::testing::Run({DlpRun(), "--bind-to", "core", "-np", absl::StrCat(n), "--", "sh", "-c",
                           absl::StrCat(kPrintCpus, "; echo bind $RANK $DLP_BIND_TO")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cpus = CpusByRank(r.out);
  ASSERT_EQ(cpus.size(), static_cast<size_t>(n)) << r.out;
  for (int rank = 0; rank < n; ++rank) {
    EXPECT_EQ(cpus.at(rank), runtime::CpusForLocalRank(allowed, rank, n)) << "rank " << rank;
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("bind ", rank, " core\n")));
  }
}

TEST(BindTo, RanksBeyondTheCpusAndTheDefaultAreNotBound) {
  const std::vector<int> allowed = runtime::AllowedCpus();
  const int beyond = static_cast<int>(allowed.size()) + 1;
  for (const std::vector<std::string>& bind : std::vector<std::vector<std::string>>{
           {"--bind-to", "core", "-np", absl::StrCat(beyond)}, {"-np", "2"}}) {
    std::vector<std::string> argv = {DlpRun()};
    argv.insert(argv.end(), bind.begin(), bind.end());
    for (const char* word : {"--", "sh", "-c", kPrintCpus}) argv.push_back(word);
    RunResult r = ::dlp::testing::Run(argv);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& [rank, cpus] : CpusByRank(r.out)) EXPECT_EQ(cpus, allowed) << rank;
  }
}

TEST(BindTo, RemoteRanksBindThemselves) {
  // A stand-in ssh runs the remote command line here: the "remote" host has
  // two local ranks, which bind as two local ranks of this host would.
  TempDir dir;
  RunOptions options;
  options.env["DLP_SSH"] = FakeSsh(dir, kRunLastArg);
  const std::vector<int> allowed = runtime::AllowedCpus();
  RunResult r = ::dlp::testing::Run({DlpRun(), "--bind-to", "core", "-np", "3", "-H",
                                     "localhost:1,192.0.2.7:2", "--", "sh", "-c", kPrintCpus},
                                    options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cpus = CpusByRank(r.out);
  ASSERT_EQ(cpus.size(), 3u) << r.out;
  EXPECT_EQ(cpus.at(0), allowed);  // alone on its host
  for (int local = 0; local < 2; ++local) {
    const std::vector<int> expected = runtime::CpusForLocalRank(allowed, local, 2);
    EXPECT_EQ(cpus.at(1 + local), expected.empty() ? allowed : expected) << "rank " << 1 + local;
  }
}

TEST(BindTo, AnUnknownValueAndATaskOfASchedulerAreRefused) {
  RunResult r = ::dlp::testing::Run({DlpRun(), "--bind-to", "socket", "-np", "1", "--", "true"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("--bind-to: socket not in {none,core}"));
  // A rank of a Slurm task or a pod runs where its scheduler put it.
  r = ::dlp::testing::Run(
      {DlpRun(), "--bind-to", "core", "--rank-source", "kubernetes", "--group", "/nonexistent"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("srun --cpu-bind"));
  RunOptions slurm_task;
  slurm_task.env["SLURM_PROCID"] = "0";
  slurm_task.env["SLURM_NTASKS"] = "1";
  r = ::dlp::testing::Run({DlpRun(), "--bind-to", "core", "--", "true"}, slurm_task);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("a Slurm task or a pod"));
}

}  // namespace
}  // namespace dlp::testing
