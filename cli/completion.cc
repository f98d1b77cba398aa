// dlp completion bash|zsh|fish: prints the shell's completion script (the
// files in completions/, built in), for `source <(dlp completion bash)`.
#include <cstdio>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "command.h"
#include "common.h"
#include "completion_scripts.h"

namespace dlp::cli {

void RegisterCompletion(CLI::App& parent, Invocation& invocation) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = parent.add_subcommand(
      "completion", "Print the completion script of a shell (source <(dlp completion bash))");
  cmd->add_option("SHELL", *shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  cmd->callback([shell, &invocation] {
    invocation.action = [shell] {
      const char* script = *shell == "bash"  ? k_bash_completion
                           : *shell == "zsh" ? k_zsh_completion
                                             : k_fish_completion;
      std::fputs(script, stdout);
      return Code(ExitCode::kSuccess);
    };
  });
}

}  // namespace dlp::cli
