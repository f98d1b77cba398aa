// Shared setup for the CLI end-to-end tests: the real build/bin/dlp against a
// real dlpd that it starts on demand in a temporary XDG_STATE_HOME, with
// DLP_CONFIG pointing to a file that does not exist (so the `local` context).
#pragma once

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {

class CliEnv {
 public:
  CliEnv() {
    mkdir(dir_.Join("state").c_str(), 0700);
    mkdir(dir_.Join("work").c_str(), 0700);
  }
  // Stops the dlpd that the commands started (its jobs have ended by then).
  ~CliEnv() { Dlp({"server", "stop"}); }

  const TempDir& dir() const { return dir_; }
  std::string StateDir() const { return dir_.Join("state/dlp"); }
  // Where jobs create and watch files.
  std::string Work(const std::string& name) const { return dir_.Join("work/" + name); }

  RunOptions Options() const {
    RunOptions options;
    options.env = {{"XDG_STATE_HOME", dir_.Join("state")},
                   {"XDG_CONFIG_HOME", dir_.Join("config")},
                   {"DLP_CONFIG", dir_.Join("no-such-config.yaml")},
                   {"NO_COLOR", "1"}};
    options.unset_env = {"DLP_CONTEXT"};
    options.cwd = dir_.path();
    options.timeout = absl::Seconds(90);
    return options;
  }

  RunResult Dlp(const std::vector<std::string>& args, const std::string& stdin_data = "") const {
    std::vector<std::string> argv = {BinPath("dlp")};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options = Options();
    options.stdin_data = stdin_data;
    return Run(argv, options);
  }

  std::unique_ptr<Background> DlpInBackground(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {BinPath("dlp")};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Background>(argv, Options());
  }

  // Writes a one-role job whose replicas run `script` with /bin/sh; `extra` is
  // appended under `spec:` (two-space indented YAML lines).
  std::string WriteJob(const std::string& name, const std::string& script, int count = 1,
                       const std::string& cpu = "100m", const std::string& extra = "") const {
    std::string indented = absl::StrReplaceAll(absl::StripTrailingAsciiWhitespace(script),
                                               {{"\n", "\n          "}});
    std::string yaml = absl::StrCat(
        "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: ", name, "}\nspec:\n",
        "  replicas:\n    worker:\n      count: ", count, "\n      command:\n",
        "        - /bin/sh\n        - -c\n        - |\n          ", indented, "\n",
        "      resources: {cpu: ", cpu, "}\n", extra);
    return dir_.WriteFile(name + ".yaml", yaml);
  }

  // Submits and returns the job id (fails the test on a non-zero exit).
  std::string Submit(const std::string& spec_path) const {
    RunResult r = Dlp({"submit", "-q", spec_path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::string(absl::StripAsciiWhitespace(r.out));
  }

  nlohmann::json Status(const std::string& id) const {
    RunResult r = Dlp({"status", id, "-o", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    return doc.is_discarded() ? nlohmann::json::object() : doc;
  }

  std::string State(const std::string& id) const {
    nlohmann::json doc = Status(id);
    return doc.contains("state") && doc["state"].is_string() ? doc["state"].get<std::string>() : "";
  }

 private:
  TempDir dir_;
};

// True while `pid` exists and is not a zombie.
inline bool ProcessAlive(int pid) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  std::string stat = ReadFileOrEmpty(absl::StrCat("/proc/", pid, "/stat"));
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

inline bool FileExists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

inline void Touch(const std::string& path) { std::ofstream(path) << "go\n"; }

// The names a section of CLI11's `--help` lists ("Subcommands:", "Options:"):
// each line's first word, split at commas ({"-o", "--output"}).
inline std::vector<std::string> HelpSectionNames(const std::string& help, absl::string_view section) {
  std::vector<std::string> names;
  bool in_section = false;
  for (absl::string_view line : absl::StrSplit(help, '\n')) {
    if (absl::StartsWith(line, section)) {
      in_section = true;
      continue;
    }
    if (!in_section) continue;
    if (line.empty() || !absl::StartsWith(line, "  ")) break;
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(line);
    if (line.size() - rest.size() > 2) continue;  // a help text's further line
    std::vector<absl::string_view> words =
        absl::StrSplit(rest, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (words.empty()) continue;
    for (absl::string_view name : absl::StrSplit(words.front(), ',', absl::SkipEmpty())) {
      names.emplace_back(name);
    }
  }
  return names;
}

}  // namespace dlp::testing
