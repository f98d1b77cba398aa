// `dlp delete` removes an ended job's record and files, refuses a running one
// unless --force cancels it first, and follows none of the links a job left in
// its folder.
#include <sys/stat.h>
#include <unistd.h>

#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

TEST(CliDelete, RemovesAnEndedJobAndItsFilesOnly) {
  CliEnv env;
  const std::string keep = env.Work("keep/file");
  ASSERT_EQ(system(("mkdir -p " + env.Work("keep") + " && echo precious > " + keep).c_str()), 0);
  // The job links its output to a folder outside and writes a log line.
  const std::string id = env.Submit(env.WriteJob(
      "linker", "echo hello; ln -s " + env.Work("keep") + " \"$DLP_OUTPUT_DIR/outside\""));
  ASSERT_EQ(env.Dlp({"wait", id}).exit_code, 0);
  const std::string folder = env.StateDir() + "/jobs/" + id;
  ASSERT_EQ(access(folder.c_str(), F_OK), 0);

  RunResult deleted = env.Dlp({"delete", id});
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "job " + id + " deleted\n");
  EXPECT_NE(access(folder.c_str(), F_OK), 0) << folder << " is still there";
  EXPECT_EQ(ReadFileOrEmpty(keep), "precious\n");
  RunResult status = env.Dlp({"status", id});
  EXPECT_EQ(status.exit_code, 3) << status.out << status.err;  // not found
  EXPECT_EQ(env.Dlp({"delete", id}).exit_code, 3);
}

TEST(CliDelete, RefusesARunningJob) {
  CliEnv env;
  const std::string id = env.Submit(env.WriteJob("sleeper", "sleep 300"));
  RunResult refused = env.Dlp({"delete", id});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("cancel it first (dlp cancel " + id + ")"));
  // --force cancels it, then deletes it once it has ended.
  RunResult forced = env.Dlp({"delete", "--force", id});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(forced.out, "job " + id + " deleted\n");
  EXPECT_EQ(env.Dlp({"status", id}).exit_code, 3);
}

TEST(CliDelete, RefusesAJobAnotherWaitsOn) {
  CliEnv env;
  const std::string first = env.Submit(env.WriteJob("first", "true"));
  ASSERT_EQ(env.Dlp({"wait", first}).exit_code, 0);
  // Every CPU held, so the dependent stays Queued.
  const std::string blocker = env.Submit(env.WriteJob("blocker", "sleep 300", 1, "2"));
  const std::string second = env.Submit(
      env.WriteJob("second", "true", 1, "100m", "  dependsOn: [{job: '" + first + "'}]\n"));
  RunResult refused = env.Dlp({"delete", first});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("job " + second + " depends on job " + first));
  ASSERT_EQ(env.Dlp({"cancel", blocker}).exit_code, 0);
  EXPECT_EQ(env.Dlp({"wait", second}).exit_code, 0);
  EXPECT_EQ(env.Dlp({"delete", first}).exit_code, 0);
}

}  // namespace
}  // namespace dlp::testing
