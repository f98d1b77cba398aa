// dlp completion bash|zsh|fish: prints the shell's completion script,
// generated from the command table (shell_completion.h); the build installs
// the same output (cli/CMakeLists.txt).
#include <cstdio>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_join.h"
#include "command.h"
#include "command_table.h"
#include "common.h"
#include "shell_completion.h"

namespace dlp::cli {

void RegisterCompletion(CLI::App& parent, Invocation& invocation) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = parent.add_subcommand(
      "completion", "Print the completion script of a shell (source <(dlp completion bash))");
  cmd->add_option("SHELL", *shell, "bash, zsh or fish")
      ->required()
      ->transform(Choices({"bash", "zsh", "fish"}));
  CLI::App* root = &parent;
  cmd->callback([shell, root, &invocation] {
    invocation.action = [shell, root] {
      const std::vector<CommandInfo> table = ReadCommandTable(*root, Commands());
      if (const std::vector<std::string> slips = UnmatchedParts(table, Commands()); !slips.empty()) {
        PrintError("the command table names what the parser lacks: " + absl::StrJoin(slips, ", "));
        return Code(ExitCode::kBackend);
      }
      const std::string script = *shell == "bash"  ? BashCompletion(table)
                                 : *shell == "zsh" ? ZshCompletion(table)
                                                   : FishCompletion(table);
      std::fputs(script.c_str(), stdout);
      return Code(ExitCode::kSuccess);
    };
  });
}

}  // namespace dlp::cli
