// A job's name is taken wherever its id is, while no other job of the caller
// has that name; an ambiguous name exits 2 listing the ids.
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

TEST(CliJobNames, AUniqueNameIsAnId) {
  CliEnv env;
  const std::string id = env.Submit(env.WriteJob("fashion-mnist", "echo trained"));
  RunResult waited = env.Dlp({"wait", "fashion-mnist"});
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  EXPECT_EQ(env.Status("fashion-mnist").value("id", ""), id);
  RunResult logs = env.Dlp({"logs", "fashion-mnist"});
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("trained"));
  RunResult unknown = env.Dlp({"status", "no-such-job"});
  EXPECT_EQ(unknown.exit_code, 3) << unknown.err;
  EXPECT_THAT(unknown.err, HasSubstr("no job named no-such-job"));
}

TEST(CliJobNames, AnAmbiguousNameListsTheIds) {
  CliEnv env;
  const std::string first = env.Submit(env.WriteJob("twin", "true"));
  const std::string second = env.Submit(env.WriteJob("twin", "true"));
  RunResult r = env.Dlp({"status", "twin"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("several jobs are named twin (" + second + ", " + first +
                               "): give the job's id"));
  EXPECT_EQ(env.Dlp({"wait", first, second}).exit_code, 0);
}

}  // namespace
}  // namespace dlp::testing
