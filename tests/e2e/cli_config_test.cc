// `dlp config`: contexts created, switched and listed in a config file.
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CliConfig, SetUseAndListContexts) {
  CliEnv env;
  const std::string config = env.dir().Join("cfg/config.yaml");
  auto dlp = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--config", config});
    return env.Dlp(args);
  };
  RunResult current = dlp({"config", "current-context"});
  EXPECT_EQ(current.exit_code, 0) << current.err;
  EXPECT_EQ(current.out, "local\n");

  RunResult set = dlp({"config", "set-context", "hpc", "--backend", "slurm", "--field", "partition=debug"});
  EXPECT_EQ(set.exit_code, 0) << set.err;
  EXPECT_TRUE(FileExists(config));
  RunResult use = dlp({"config", "use-context", "hpc"});
  EXPECT_EQ(use.exit_code, 0) << use.err;
  EXPECT_EQ(dlp({"config", "current-context"}).out, "hpc\n");

  RunResult contexts = dlp({"config", "get-contexts"});
  EXPECT_EQ(contexts.exit_code, 0) << contexts.err;
  EXPECT_THAT(contexts.out, HasSubstr("partition=debug"));
  EXPECT_THAT(contexts.out, ::testing::ContainsRegex("\\*\\s+hpc\\s+slurm"));

  RunResult view = dlp({"config", "view"});
  EXPECT_THAT(view.out, HasSubstr("current-context: hpc"));
  RunResult complete = dlp({"__complete", "contexts"});
  EXPECT_THAT(complete.out, HasSubstr("hpc\tslurm"));

  // DLP_CONTEXT and --context override the file's choice.
  EXPECT_EQ(dlp({"--context", "local", "config", "current-context"}).out, "local\n");
  RunResult unknown = dlp({"config", "use-context", "nowhere"});
  EXPECT_EQ(unknown.exit_code, 3) << unknown.err;
  RunResult missing_backend = dlp({"config", "set-context", "new"});
  EXPECT_EQ(missing_backend.exit_code, 2) << missing_backend.err;
}

TEST(CliConfig, WarnsOfPlainHttpToAnotherMachine) {
  CliEnv env;
  const std::string config = env.dir().Join("cfg/config.yaml");
  auto dlp = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--config", config});
    return env.Dlp(args);
  };
  RunResult set = dlp({"config", "set-context", "team", "--backend", "remote", "--field",
                       "server=http://192.0.2.1:8470", "--field", "token=secret"});
  EXPECT_EQ(set.exit_code, 0) << set.err;
  EXPECT_THAT(set.err, HasSubstr("dlp: warning: "));
  EXPECT_THAT(set.err, HasSubstr("in clear"));
  RunResult list = dlp({"--context", "team", "list"});
  EXPECT_NE(list.exit_code, 0);
  EXPECT_THAT(list.err, HasSubstr("--allow-insecure-http"));

  RunResult allow = dlp({"config", "set-context", "team", "--allow-insecure-http"});
  EXPECT_EQ(allow.exit_code, 0) << allow.err;
  EXPECT_THAT(allow.err, Not(HasSubstr("warning")));
  EXPECT_THAT(dlp({"config", "view"}).out, HasSubstr("allow-insecure-http: true"));
  RunResult local = dlp({"config", "set-context", "near", "--backend", "remote", "--field",
                         "server=http://127.0.0.1:8470"});
  EXPECT_THAT(local.err, Not(HasSubstr("warning")));
}

TEST(CliServer, StartStatusStop) {
  CliEnv env;
  RunResult none = env.Dlp({"server", "status"});
  EXPECT_EQ(none.exit_code, 4) << none.out << none.err;
  RunResult start = env.Dlp({"server", "start"});
  EXPECT_EQ(start.exit_code, 0) << start.err;
  EXPECT_THAT(start.out, HasSubstr("127.0.0.1:"));
  RunResult status = env.Dlp({"server", "status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr(env.StateDir()));
  RunResult version = env.Dlp({"version"});
  EXPECT_THAT(version.out, HasSubstr("dlpd "));
  EXPECT_EQ(env.Dlp({"server", "stop"}).exit_code, 0);
  EXPECT_EQ(env.Dlp({"server", "status"}).exit_code, 4);
}

}  // namespace
}  // namespace dlp::testing
