// `dlp completion bash|zsh|fish` is generated from the command table, so it
// offers every verb, subverb and flag the parser has: the lists here come from
// the parser itself (each command's --help), and the bash script is run.
#include <set>

#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;
using ::testing::Not;

struct Command {
  std::string path;  // "sweep submit"
  std::vector<std::string> subcommands;
  std::vector<std::string> flags;
};

// Every command the parser has, from `dlp [PATH] --help` down the tree.
void Walk(const CliEnv& env, const std::vector<std::string>& path, std::vector<Command>& out) {
  std::vector<std::string> args = path;
  args.push_back("--help");
  RunResult r = env.Dlp(args);
  ASSERT_EQ(r.exit_code, 0) << absl::StrJoin(args, " ") << ": " << r.err;
  Command command{absl::StrJoin(path, " "), HelpSectionNames(r.out, "Subcommands:"),
                  HelpSectionNames(r.out, "Options:")};
  out.push_back(command);
  for (const std::string& sub : command.subcommands) {
    std::vector<std::string> sub_path = path;
    sub_path.push_back(sub);
    Walk(env, sub_path, out);
  }
}

class CliCompletion : public ::testing::Test {
 protected:
  void SetUp() override {
    RunResult r = env_.Dlp({"completion", "bash"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    bash_script_ = env_.dir().WriteFile("dlp.bash", r.out);
  }

  // What the bash completion offers for the words `line` (the last one is
  // being completed; "" for a new word), one per line, sorted.
  std::vector<std::string> Complete(const std::vector<std::string>& words) {
    return CompleteAll({words}).front();
  }

  std::vector<std::vector<std::string>> CompleteAll(const std::vector<std::vector<std::string>>& lines) {
    std::string script = absl::StrCat("source ", bash_script_, "\n");
    for (const std::vector<std::string>& words : lines) {
      std::vector<std::string> quoted;
      for (const std::string& w : words) quoted.push_back("'" + w + "'");
      absl::StrAppend(&script, "COMP_WORDS=('", BinPath("dlp"), "' ", absl::StrJoin(quoted, " "),
                      "); COMP_CWORD=", words.size(),
                      "; _dlp; printf '%s\\n' \"${COMPREPLY[@]}\" | sort -u; echo '<end>'\n");
    }
    RunOptions options = env_.Options();
    RunResult r = dlp::testing::Run({"bash", "--norc", "-c", script}, options);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::vector<std::string>> out(1);
    for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      if (line == "<end>") {
        out.emplace_back();
      } else {
        out.back().emplace_back(line);
      }
    }
    out.pop_back();
    EXPECT_EQ(out.size(), lines.size()) << r.out << r.err;
    out.resize(lines.size());
    return out;
  }

  bool HaveShell(const std::string& name) const {
    return dlp::testing::Run({"sh", "-c", "command -v " + name}, env_.Options()).exit_code == 0;
  }

  // `dlp completion SHELL` written to FILE, after `check FILE` (a syntax
  // check) accepted it.
  std::string CheckedScript(const std::string& shell, const std::string& file,
                            std::vector<std::string> check) const {
    RunResult r = env_.Dlp({"completion", shell});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string path = env_.dir().WriteFile(file, r.out);
    check.push_back(path);
    RunResult syntax = dlp::testing::Run(check, env_.Options());
    EXPECT_EQ(syntax.exit_code, 0) << shell << ": " << syntax.err;
    return path;
  }

  CliEnv env_;
  std::string bash_script_;
};

TEST_F(CliCompletion, BashOffersEveryVerbAndFlagTheParserHas) {
  std::vector<Command> commands;
  Walk(env_, {}, commands);
  ASSERT_GT(commands.size(), 40u);
  std::vector<std::vector<std::string>> lines;
  for (const Command& c : commands) {
    std::vector<std::string> words = absl::StrSplit(c.path, ' ', absl::SkipEmpty());
    words.push_back("");
    lines.push_back(words);
    words.back() = "-";
    lines.push_back(words);
  }
  const std::vector<std::vector<std::string>> offered = CompleteAll(lines);
  for (size_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    EXPECT_THAT(offered[2 * i], IsSupersetOf(c.subcommands)) << "dlp " << c.path;
    EXPECT_THAT(offered[2 * i + 1], IsSupersetOf(c.flags)) << "dlp " << c.path << " -";
    EXPECT_THAT(offered[2 * i], Not(Contains("__complete"))) << "dlp " << c.path;
  }
  // Global flags stay valid after a subcommand (the parser's fallthrough).
  EXPECT_THAT(Complete({"sweep", "submit", "--con"}), Contains("--context"));
}

TEST_F(CliCompletion, BashCompletesWordsFromTheTable) {
  RunResult p = dlp::testing::Run({"bash", "--norc", "-c",
                     absl::StrCat("source <('", BinPath("dlp"), "' completion bash); complete -p dlp")},
                    env_.Options());
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out, "complete -F _dlp dlp\n");

  EXPECT_THAT(Complete({"sw"}), ::testing::ElementsAre("sweep"));
  EXPECT_THAT(Complete({"sweep", "su"}), ::testing::ElementsAre("submit"));
  EXPECT_THAT(Complete({"metrics", "--c"}), ::testing::ElementsAre("--compare", "--config", "--context"));
  EXPECT_THAT(Complete({"list", "-o", ""}), ::testing::ElementsAre("json", "table", "wide", "yaml"));
  EXPECT_THAT(Complete({"metrics", "--replicas", "m"}), ::testing::ElementsAre("max", "mean", "min"));
  EXPECT_THAT(Complete({"render", "--backend", ""}),
              ::testing::UnorderedElementsAre("kubernetes", "local", "remote", "slurm"));
  EXPECT_THAT(Complete({"completion", ""}), ::testing::ElementsAre("bash", "fish", "zsh"));
  EXPECT_THAT(Complete({"admin", "tenant", ""}),
              ::testing::UnorderedElementsAre("create", "update", "list", "show", "delete"));
  // Contexts come from `dlp __complete contexts` (the default config has "local").
  EXPECT_THAT(Complete({"--context", ""}), ::testing::ElementsAre("local"));
  EXPECT_THAT(Complete({"config", "use-context", ""}), ::testing::ElementsAre("local"));
  // A flag's value is skipped: "-o json" leaves `list` the command.
  EXPECT_THAT(Complete({"list", "-o", "json", "--st"}), ::testing::ElementsAre("--state"));
  // `-f` is a flag of logs but a file option of submit.
  env_.dir().WriteFile("job.yaml", "kind: Job\n");
  EXPECT_THAT(Complete({"submit", "-f", "jo"}), ::testing::ElementsAre("job.yaml"));
  EXPECT_THAT(Complete({"logs", "-f", "jo"}), ::testing::IsEmpty());  // job ids: no dlpd runs
  EXPECT_FALSE(FileExists(env_.StateDir() + "/dlpd.addr"));
}

TEST_F(CliCompletion, TheBuildInstallsWhatCompletionPrints) {
  // cli/CMakeLists.txt writes them into the build tree; cmake --install copies them.
  const std::string built = std::string(DLP_BIN_DIR) + "/../completions/";
  for (const auto& [shell, file] : std::vector<std::pair<std::string, std::string>>{
           {"bash", "dlp"}, {"zsh", "_dlp"}, {"fish", "dlp.fish"}}) {
    RunResult r = env_.Dlp({"completion", shell});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("Generated by `dlp completion " + shell + "`")) << shell;
    EXPECT_EQ(r.out, ReadFileOrEmpty(built + file)) << shell;
  }
  RunResult tcsh = env_.Dlp({"completion", "tcsh"});
  EXPECT_EQ(tcsh.exit_code, 2);
  EXPECT_THAT(tcsh.err, HasSubstr("dlp: error: "));
}

TEST_F(CliCompletion, ZshScriptParsesAndRegisters) {
  if (!HaveShell("zsh")) GTEST_SKIP() << "no zsh (scripts/install-deps.sh installs it)";
  const std::string file = CheckedScript("zsh", "_dlp", {"zsh", "-n"});
  RunResult loaded = dlp::testing::Run({"zsh", "-f", "-c",
                          absl::StrCat("autoload -U compinit && compinit -u -D && source ", file,
                                       " && print -r -- $_comps[dlp] && whence -w _dlp__metrics")},
                         env_.Options());
  EXPECT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_EQ(loaded.out, "_dlp\n_dlp__metrics: function\n") << loaded.err;
  EXPECT_THAT(ReadFileOrEmpty(file), HasSubstr("--compare"));
}

TEST_F(CliCompletion, FishCompletesWordsFromTheTable) {
  if (!HaveShell("fish")) GTEST_SKIP() << "no fish (scripts/install-deps.sh installs it)";
  const std::string file = CheckedScript("fish", "dlp.fish", {"fish", "--no-execute"});
  // `complete -C LINE` prints what fish offers for LINE: "WORD\tDESCRIPTION".
  auto offered = [&](const std::string& line) {
    RunResult r = dlp::testing::Run({"fish", "--no-config", "-c",
                       absl::StrCat("source ", file, "; complete -C '", line, "'")},
                      env_.Options());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> words;
    for (absl::string_view l : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      words.emplace_back(l.substr(0, l.find('\t')));
    }
    return words;
  };
  EXPECT_THAT(offered("dlp sw"), ::testing::ElementsAre("sweep"));
  EXPECT_THAT(offered("dlp sweep "), IsSupersetOf({"submit", "status", "list", "cancel"}));
  EXPECT_THAT(offered("dlp metrics --c"), IsSupersetOf({"--compare", "--context"}));
  EXPECT_THAT(offered("dlp list -o "), IsSupersetOf({"table", "wide", "json", "yaml"}));
  EXPECT_THAT(offered("dlp admin tenant "), Contains("create"));
  EXPECT_THAT(offered("dlp admin tenant "), Not(Contains("sweep")));
}

}  // namespace
}  // namespace dlp::testing
