// `dlp sumbit` names the word it did not know and the subcommand meant, where
// CLI11 alone would say "A subcommand is required".
#include "unknown_command.h"

#include <gtest/gtest.h>

#include "CLI/CLI.hpp"

namespace dlp::cli {
namespace {

// Parses `line` with a root command shaped like dlp's; the error for the word
// it left over, once the parse has failed.
std::optional<std::string> ErrorFor(const std::string& line) {
  CLI::App app("test", "dlp");
  app.require_subcommand(1);
  std::string context, job;
  app.add_option("--context", context);
  app.add_subcommand("submit", "Submit");
  app.add_subcommand("status", "Status")->add_option("JOB", job)->required();
  app.add_subcommand("server", "Server");
  app.add_subcommand("__complete", "Hidden")->group("");
  try {
    app.parse(line);
  } catch (const CLI::ParseError&) {
    return UnknownCommandError(app);
  }
  ADD_FAILURE() << "'" << line << "' parsed";
  return std::nullopt;
}

TEST(UnknownCommandTest, SuggestsTheClosestSubcommand) {
  EXPECT_EQ(ErrorFor("sumbit"), "unknown command 'sumbit'; did you mean 'submit'?");
  EXPECT_EQ(ErrorFor("--context prod sever start"),
            "unknown command 'sever'; did you mean 'server'?");
}

TEST(UnknownCommandTest, NamesTheWordAloneWhenNothingIsClose) {
  EXPECT_EQ(ErrorFor("ssh"), "unknown command 'ssh'");
  EXPECT_EQ(ErrorFor("run -np 4"), "unknown command 'run'");
}

TEST(UnknownCommandTest, NeverSuggestsAHiddenSubcommand) {
  EXPECT_EQ(ErrorFor("__complet"), "unknown command '__complet'");
}

TEST(UnknownCommandTest, LeavesOtherErrorsToCli11) {
  EXPECT_EQ(ErrorFor("status"), std::nullopt);  // a subcommand was chosen
  EXPECT_EQ(ErrorFor("--no-such-flag"), std::nullopt);
  EXPECT_EQ(ErrorFor(""), std::nullopt);
}

// The same for a misspelt flag, with dlp's fallthrough of global flags.
std::optional<std::string> FlagErrorFor(const std::string& line) {
  CLI::App app("test", "dlp");
  app.fallthrough();
  app.require_subcommand(1);
  std::string context, state, output, job;
  app.add_option("--context", context);
  CLI::App* list = app.add_subcommand("list", "List");
  list->add_option("--state", state);
  list->add_option("-o,--output", output);
  list->add_option("--secret", state)->group("");
  app.add_subcommand("status", "Status")->add_option("JOB", job)->required();
  try {
    app.parse(line);
  } catch (const CLI::ParseError&) {
    return UnknownFlagError(app);
  }
  ADD_FAILURE() << "'" << line << "' parsed";
  return std::nullopt;
}

TEST(UnknownFlagTest, SuggestsTheClosestFlagValidThere) {
  EXPECT_EQ(FlagErrorFor("list --stat Running"),
            "unknown flag '--stat' for 'dlp list'; did you mean '--state'?");
  // A global flag is valid after the subcommand too.
  EXPECT_EQ(FlagErrorFor("list --contxt prod"),
            "unknown flag '--contxt' for 'dlp list'; did you mean '--context'?");
  EXPECT_EQ(FlagErrorFor("list --outptu=json"),
            "unknown flag '--outptu' for 'dlp list'; did you mean '--output'?");
  // Another subcommand's flag is not offered, nor a hidden one.
  EXPECT_EQ(FlagErrorFor("status 1 --stat"), "unknown flag '--stat' for 'dlp status'");
  EXPECT_EQ(FlagErrorFor("list --secre"), "unknown flag '--secre' for 'dlp list'");
  EXPECT_EQ(FlagErrorFor("list -x"), "unknown flag '-x' for 'dlp list'");
}

TEST(UnknownFlagTest, LeavesOtherErrorsToCli11) {
  EXPECT_EQ(FlagErrorFor("status"), std::nullopt);  // JOB is missing
  EXPECT_EQ(FlagErrorFor("list --state"), std::nullopt);  // its value is
}

}  // namespace
}  // namespace dlp::cli
