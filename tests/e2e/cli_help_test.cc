// dlp's command surface: every subcommand's --help, usage errors exit 2, and the
// man page names every real subcommand (parsed from --help); the completions
// are cli_completion_test's.
#include <set>

#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// The names listed under "Subcommands:" in `dlp [CMD] --help`.
std::vector<std::string> Subcommands(const CliEnv& env, const std::vector<std::string>& path) {
  std::vector<std::string> args = path;
  args.push_back("--help");
  RunResult r = env.Dlp(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return HelpSectionNames(r.out, "Subcommands:");
}

TEST(CliHelp, TopLevelListsEverySubcommand) {
  CliEnv env;
  std::vector<std::string> names = Subcommands(env, {});
  EXPECT_THAT(names, ::testing::IsSupersetOf({"submit", "status", "list", "logs", "describe",
                                              "cancel", "wait", "validate", "render", "server",
                                              "config", "version"}));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains("__complete")));
}

TEST(CliHelp, EverySubcommandHelpExitsZero) {
  CliEnv env;
  for (const std::string& name : Subcommands(env, {})) {
    RunResult r = env.Dlp({name, "--help"});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr(name)) << name;
    for (const std::string& child : Subcommands(env, {name})) {
      RunResult c = env.Dlp({name, child, "--help"});
      EXPECT_EQ(c.exit_code, 0) << name << " " << child << ": " << c.err;
    }
  }
  EXPECT_EQ(env.Dlp({"--help"}).exit_code, 0);
  EXPECT_EQ(env.Dlp({"-h"}).exit_code, 0);
}

TEST(CliHelp, UsageErrorsExitTwo) {
  CliEnv env;
  const std::vector<std::vector<std::string>> cases = {
      {},                                    // no command
      {"no-such-command"},                   //
      {"list", "--no-such-flag"},            //
      {"status"},                            // missing JOB
      {"list", "--limit", "many"},           //
      {"list", "-o", "xml"},                 //
      {"list", "--state", "Sleeping"},       //
      {"submit"},                            // no spec
      {"wait", "1", "--timeout", "soon"},    //
      {"logs", "1", "--since", "yesterday"}, //
      {"server"},                            // missing action
      {"config", "use-context"},             //
  };
  for (const auto& args : cases) {
    RunResult r = env.Dlp(args);
    EXPECT_EQ(r.exit_code, 2) << absl::StrJoin(args, " ") << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr("dlp: error: ")) << absl::StrJoin(args, " ");
  }
}

TEST(CliHelp, UnknownCommandSuggestsTheClosestOne) {
  CliEnv env;
  RunResult r = env.Dlp({"sumbit", "job.yaml"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("dlp: error: unknown command 'sumbit'; did you mean 'submit'?\n"));
  for (const char* word : {"run", "ssh"}) {
    RunResult far = env.Dlp({word});
    EXPECT_EQ(far.exit_code, 2) << far.err;
    EXPECT_THAT(far.err, HasSubstr(absl::StrCat("dlp: error: unknown command '", word, "'\n")));
  }
}

TEST(CliHelp, UnknownFlagSuggestsTheClosestOne) {
  CliEnv env;
  RunResult r = env.Dlp({"list", "--stat", "Running"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("dlp: error: unknown flag '--stat' for 'dlp list'; did you mean "
                               "'--state'?\n"));
  RunResult compare = env.Dlp({"metrics", "1", "--compar"});
  EXPECT_EQ(compare.exit_code, 2) << compare.err;
  EXPECT_THAT(compare.err, HasSubstr("did you mean '--compare'?"));
}

TEST(CliHelp, VersionPrintsTheVersion) {
  CliEnv env;
  RunResult r = env.Dlp({"version", "--client"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith("dlp "));
  // The flag prints what the subcommand prints.
  RunResult flag = env.Dlp({"--version"});
  EXPECT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_EQ(flag.out, r.out);
}

TEST(CliHelp, ManPageNamesEverySubcommand) {
  CliEnv env;
  std::vector<std::string> expected;  // "submit", ..., "server start", ...
  for (const std::string& name : Subcommands(env, {})) {
    expected.push_back(name);
    for (const std::string& child : Subcommands(env, {name})) expected.push_back(child);
  }
  ASSERT_GT(expected.size(), 12u);
  // roff writes "get-contexts" as "get\-contexts".
  const std::string man =
      absl::StrReplaceAll(ReadFileOrEmpty(std::string(DLP_SOURCE_DIR) + "/man/dlp.1"), {{"\\-", "-"}});
  ASSERT_FALSE(man.empty());
  for (const std::string& name : expected) {
    EXPECT_TRUE(man.find(name) != std::string::npos) << "dlp(1) does not name " << name;
  }
  // The man page also documents every exit code and the environment.
  for (const char* word : {"130", "DLP_CONFIG", "DLP_CONTEXT", "XDG_STATE_HOME", "XDG_CONFIG_HOME"}) {
    EXPECT_TRUE(man.find(word) != std::string::npos) << "dlp(1) does not mention " << word;
  }
}

TEST(CliHelp, CompleteHelperListsContextsWithoutADaemon) {
  CliEnv env;
  RunResult r = env.Dlp({"__complete", "contexts"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith("local\t"));
  // No dlpd runs yet: job completion prints nothing and starts nothing.
  RunResult jobs = env.Dlp({"__complete", "jobs"});
  EXPECT_EQ(jobs.exit_code, 0) << jobs.err;
  EXPECT_EQ(jobs.out, "");
  EXPECT_FALSE(FileExists(env.StateDir() + "/dlpd.addr"));
}

}  // namespace
}  // namespace dlp::testing
