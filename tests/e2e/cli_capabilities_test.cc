// A verb whose capability the context's backend lacks is refused before it
// does anything, with one message naming the backend, what it lacks, the
// command and the backends that offer it (exit 4, as for an unsupported
// call); --help says what each such command needs.
#include <algorithm>

#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

class CliCapabilities : public ::testing::Test {
 protected:
  // A Slurm context: no Slurm is needed, since nothing may reach it.
  CliCapabilities()
      : config_(env_.dir().WriteFile(
            "slurm.yaml", absl::StrCat("current-context: hpc\ncontexts:\n  - {name: hpc, backend: "
                                       "slurm, partition: debug, workdir: ",
                                       env_.dir().Join("slurm"), "}\n"))) {}

  RunResult Dlp(std::vector<std::string> args) {
    args.insert(args.begin(), {"--config", config_});
    return env_.Dlp(args);
  }

  CliEnv env_;
  std::string config_;
};

TEST_F(CliCapabilities, AVerbTheBackendLacksIsRefusedFirst) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"admin", "tenant", "list"},
       "the slurm backend does not offer tenants and tokens (`dlp admin tenant list` needs the "
       "tenant-admin capability); use the local or remote backend"},
      {{"admin", "queue", "create", "q", "--nominal", "cpu=1"},
       "the slurm backend does not offer queue administration (`dlp admin queue create` needs "
       "the queue-admin capability); use the local or remote backend"},
      // --force would cancel first: nothing happens.
      {{"delete", "--force", "123"},
       "the slurm backend does not offer deleting jobs (`dlp delete` needs the history "
       "capability); use the local or remote backend"},
      {{"model", "list"},
       "the slurm backend does not offer a model registry (`dlp model list` needs the models "
       "capability); use the local or remote backend"},
      {{"queue"},
       "the slurm backend does not offer scheduler explanations and queue standings (`dlp "
       "queue` needs the scheduler capability); use the local or remote backend"},
      {{"status", "123", "--why"},
       "the slurm backend does not offer scheduler explanations and queue standings (`dlp "
       "status --why` needs the scheduler capability); use the local or remote backend"},
  };
  for (const Case& c : cases) {
    RunResult r = Dlp(c.args);
    EXPECT_EQ(r.exit_code, 4) << absl::StrJoin(c.args, " ") << "\n" << r.err;
    EXPECT_EQ(r.err, "dlp: error: " + c.message + "\n") << absl::StrJoin(c.args, " ");
    EXPECT_EQ(r.out, "") << absl::StrJoin(c.args, " ");
  }
  // What every backend does goes on: `render` contacts nothing.
  RunResult render = Dlp({"render", env_.WriteJob("hello", "echo hi")});
  EXPECT_EQ(render.exit_code, 0) << render.err;
  EXPECT_THAT(render.out, HasSubstr("#SBATCH"));
}

TEST_F(CliCapabilities, TheLocalBackendHasThemAll) {
  // The default config: the local backend; `model list` reaches its dlpd.
  RunResult r = env_.Dlp({"model", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(CliCapabilities, HelpSaysWhatACommandNeeds) {
  RunResult tenant = env_.Dlp({"admin", "tenant", "create", "--help"});
  EXPECT_EQ(tenant.exit_code, 0) << tenant.err;
  EXPECT_THAT(tenant.out, HasSubstr("Needs the tenant-admin capability (tenants and tokens), "
                                    "which the local and remote backends offer."));
  RunResult status = env_.Dlp({"status", "--help"});
  EXPECT_THAT(status.out, HasSubstr("--why: Needs the scheduler capability"));
  RunResult submit = env_.Dlp({"submit", "--help"});
  EXPECT_THAT(submit.out, ::testing::Not(HasSubstr("capability")));
}

TEST_F(CliCapabilities, TheManPageListsWhatEachCommandNeeds) {
  std::string man = absl::StrReplaceAll(ReadFileOrEmpty(std::string(DLP_SOURCE_DIR) + "/man/dlp.1"),
                                        {{"\\-", "-"}, {"\\fB", ""}, {"\\fR", ""}});
  const size_t start = man.find(".SH BACKEND CAPABILITIES");
  ASSERT_NE(start, std::string::npos);
  const std::vector<std::string> section = absl::StrSplit(
      man.substr(start, man.find(".SH", start + 1) - start), '\n');
  // The verbs and their subverbs, with the capability their --help names.
  std::vector<std::vector<std::string>> paths;
  for (const std::string& verb : HelpSectionNames(env_.Dlp({"--help"}).out, "Subcommands:")) {
    paths.push_back({verb});
    for (const std::string& sub : HelpSectionNames(env_.Dlp({verb, "--help"}).out, "Subcommands:")) {
      paths.push_back({verb, sub});
    }
  }
  int needing = 0;
  for (const std::vector<std::string>& path : paths) {
    std::vector<std::string> args = path;
    args.push_back("--help");
    const std::string help = env_.Dlp(args).out;
    const size_t at = help.find("Needs the ");
    if (at == std::string::npos || (at > 0 && help[at - 1] != '\n')) continue;
    const std::string capability = help.substr(at + 10, help.find(' ', at + 10) - at - 10);
    const std::string command = absl::StrJoin(path, " ");
    ++needing;
    // "admin tenant, admin token<TAB>tenant-admin<TAB>...": a row names the
    // command (or a parent of it) and the capability.
    const bool listed = std::any_of(section.begin(), section.end(), [&](const std::string& row) {
      const std::vector<std::string> columns = absl::StrSplit(row, '\t');
      if (columns.size() < 2 || columns[1] != capability) return false;
      for (absl::string_view named : absl::StrSplit(columns[0], ", ")) {
        if (command == named || absl::StartsWith(command, absl::StrCat(named, " "))) return true;
      }
      return false;
    });
    EXPECT_TRUE(listed) << "dlp(1) BACKEND CAPABILITIES lacks " << command << " (" << capability
                        << ")";
  }
  EXPECT_GT(needing, 8);
}

}  // namespace
}  // namespace dlp::testing
