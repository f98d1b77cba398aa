// The dlp-run command line for a job, finding dlp-run, and shell quoting.
#include "contract/dlp_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "contract/shell_quote.h"
#include "support/temp_dir.h"

namespace dlp::contract {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(DlpRunCommand, CarriesEveryPieceOfTheJob) {
  const JobFolder folder{"/s/jobs/7"};
  DlpRunJob job;
  job.dlp_run = "/opt/dlp/bin/dlp-run";
  job.group_file = folder.GroupFile();
  job.log_dir = folder.LogDir();
  job.status_file = folder.StatusFile();
  job.grace_period = absl::Seconds(2.5);
  job.job_id = "7";
  job.job_name = "my job";
  job.output_dir = folder.OutputDir();
  DlpRunCommand c = MakeDlpRunCommand(job);
  EXPECT_THAT(c.argv,
              ElementsAre("/opt/dlp/bin/dlp-run", "--group", "/s/jobs/7/group.json", "--log-dir",
                          "/s/jobs/7/logs", "--status-file", "/s/jobs/7/status.json",
                          "--grace-period", "2.5"));
  EXPECT_THAT(c.env, UnorderedElementsAre(Pair("DLP_JOB_ID", "7"), Pair("DLP_JOB_NAME", "my job"),
                                          Pair("DLP_OUTPUT_DIR", "/s/jobs/7/output")));
  EXPECT_EQ(c.ShellLine(),
            "DLP_JOB_ID=7 DLP_JOB_NAME='my job' "
            "DLP_OUTPUT_DIR=/s/jobs/7/output /opt/dlp/bin/dlp-run "
            "--group /s/jobs/7/group.json --log-dir /s/jobs/7/logs --status-file "
            "/s/jobs/7/status.json --grace-period 2.5");
}

TEST(DlpRunCommand, LeavesOutWhatIsNotGiven) {
  DlpRunJob job;
  job.group_file = "g.json";
  job.log_dir = "logs";
  job.trace_dir = "traces";
  DlpRunCommand c = MakeDlpRunCommand(job);
  EXPECT_THAT(c.argv, ElementsAre("dlp-run", "--group", "g.json", "--log-dir", "logs",
                                  "--trace-dir", "traces"));
  EXPECT_TRUE(c.env.empty());
}

TEST(FindDlpRun, HonoursTheEnvironmentFirst) {
  testing::TempDir dir;
  const std::string fake = dir.WriteFile("dlp-run", "#!/bin/sh\n");
  chmod(fake.c_str(), 0755);
  setenv("DLP_RUN", fake.c_str(), 1);
  auto found = FindDlpRun();
  unsetenv("DLP_RUN");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, fake);

  setenv("DLP_RUN", dir.Join("missing").c_str(), 1);
  const char* old_path = getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  setenv("PATH", dir.Join("nowhere").c_str(), 1);
  auto missing = FindDlpRun();
  setenv("PATH", saved.c_str(), 1);
  unsetenv("DLP_RUN");
  // A $DLP_RUN that is not there falls through to the one next to this
  // program (build/bin/dlp-run, when built) and then PATH.
  if (missing.ok()) {
    EXPECT_NE(*missing, dir.Join("missing"));
    EXPECT_THAT(*missing, ::testing::EndsWith("/dlp-run"));
  } else {
    EXPECT_THAT(std::string(missing.status().message()), HasSubstr("$DLP_RUN="));
    EXPECT_THAT(std::string(missing.status().message()), HasSubstr("PATH"));
  }
}

TEST(ShellQuote, SurvivesTheShell) {
  EXPECT_EQ(ShellQuote("abc"), "'abc'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuoteIfNeeded("a/b-c.d=e:f"), "a/b-c.d=e:f");
  EXPECT_EQ(ShellQuoteIfNeeded("$(x)"), "'$(x)'");
  EXPECT_EQ(ShellCommandLine({"echo", "a b", "c"}), "echo 'a b' c");
}

}  // namespace
}  // namespace dlp::contract
