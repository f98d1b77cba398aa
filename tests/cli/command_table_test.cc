// The command table read off a CLI11 app shaped like dlp's: verbs, subverbs,
// flags, the values the table knows, and the capabilities the entries give.
#include "command_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "CLI/CLI.hpp"

namespace dlp::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A small dlp: global --context, a few verbs with flags, admin's tree, and
// the hidden __complete.
class CommandTableTest : public ::testing::Test {
 protected:
  CommandTableTest() {
    app_.add_option("--context", context_, "Context to use")->option_text("CONTEXT");
    CLI::App* submit = app_.add_subcommand("submit", "Submit a job spec");
    submit->add_option("FILE", file_, "Job spec")->required();
    submit->add_option("--set", sets_, "Override a spec value")->option_text("KEY=VALUE");
    submit->add_option("-o,--output", output_, "Output format")->transform(Choices({"table", "json"}));
    submit->add_flag("-q,--quiet", quiet_, "Print only the id");
    CLI::App* status = app_.add_subcommand("status", "Show a job's state");
    status->add_option("JOB", jobs_, "Job ids")->required();
    status->add_flag("--why", quiet_, "Why the job waits");
    CLI::App* admin = app_.add_subcommand("admin", "Administer");
    CLI::App* tenant = admin->add_subcommand("tenant", "Tenants");
    tenant->add_subcommand("create", "Create a tenant")->add_option("NAME", file_, "Tenant");
    admin->add_subcommand("queue", "Queues")->add_subcommand("list", "List the queues");
    app_.add_subcommand("__complete", "Candidates")->group("");
  }

  const CommandInfo& At(const std::vector<CommandInfo>& table, const std::string& name) {
    auto it = std::find_if(table.begin(), table.end(),
                           [&](const CommandInfo& c) { return c.Name() == name; });
    EXPECT_NE(it, table.end()) << name;
    return *it;
  }

  const FlagInfo& Flag(const CommandInfo& command, const std::string& name) {
    auto it = std::find_if(command.flags.begin(), command.flags.end(), [&](const FlagInfo& f) {
      return std::find(f.names.begin(), f.names.end(), name) != f.names.end();
    });
    EXPECT_NE(it, command.flags.end()) << command.Name() << " " << name;
    return *it;
  }

  const std::vector<CommandEntry> entries_ = {
      {"status", nullptr, Capability::kNone, {{"--why", Capability::kScheduler}}},
      {"admin", nullptr, Capability::kNone, {{"tenant", Capability::kTenantAdmin}}},
  };
  CLI::App app_{"dlp", "dlp"};
  std::string context_, file_, output_;
  std::vector<std::string> sets_, jobs_;
  bool quiet_ = false;
};

TEST_F(CommandTableTest, ListsEveryVerbAndSubverbParentsFirst) {
  const std::vector<CommandInfo> table = ReadCommandTable(app_, entries_);
  std::vector<std::string> names;
  for (const CommandInfo& c : table) names.push_back(c.Name());
  EXPECT_THAT(names, ElementsAre("", "submit", "status", "admin", "admin tenant",
                                 "admin tenant create", "admin queue", "admin queue list",
                                 "__complete"));
  EXPECT_THAT(At(table, "").subcommands, ElementsAre("submit", "status", "admin"));
  EXPECT_TRUE(At(table, "__complete").hidden);
  EXPECT_FALSE(At(table, "admin tenant").hidden);
  EXPECT_EQ(At(table, "submit").help, "Submit a job spec");
}

TEST_F(CommandTableTest, KnowsEachFlagsValues) {
  const std::vector<CommandInfo> table = ReadCommandTable(app_, entries_);
  const CommandInfo& submit = At(table, "submit");
  const FlagInfo& output = Flag(submit, "--output");
  EXPECT_THAT(output.names, ElementsAre("-o", "--output"));
  EXPECT_EQ(output.kind, ValueKind::kChoice);
  EXPECT_THAT(output.choices, ElementsAre("table", "json"));
  EXPECT_EQ(Flag(submit, "--quiet").kind, ValueKind::kNone);
  EXPECT_EQ(Flag(submit, "--set").kind, ValueKind::kText);
  EXPECT_TRUE(Flag(submit, "--set").repeatable);
  EXPECT_EQ(Flag(submit, "--help").kind, ValueKind::kNone);
  EXPECT_EQ(Flag(At(table, ""), "--context").kind, ValueKind::kContext);
  ASSERT_EQ(submit.arguments.size(), 1u);
  EXPECT_EQ(submit.arguments[0].kind, ValueKind::kFile);
  const CommandInfo& status = At(table, "status");
  ASSERT_EQ(status.arguments.size(), 1u);
  EXPECT_EQ(status.arguments[0].kind, ValueKind::kJob);
  EXPECT_TRUE(status.arguments[0].repeatable);
}

TEST_F(CommandTableTest, ChoicesStillCheckAndTakeTheNamesOwnCase) {
  app_.parse("submit job.yaml -o JSON", false);
  EXPECT_EQ(output_, "json");
  EXPECT_THROW(app_.parse("submit job.yaml -o xml", false), CLI::ValidationError);
}

TEST_F(CommandTableTest, NeedsComeFromTheEntriesAndGoDownTheTree) {
  const std::vector<CommandInfo> table = ReadCommandTable(app_, entries_);
  EXPECT_EQ(At(table, "submit").needs, Capability::kNone);
  EXPECT_EQ(At(table, "admin").needs, Capability::kNone);
  EXPECT_EQ(At(table, "admin tenant").needs, Capability::kTenantAdmin);
  EXPECT_EQ(At(table, "admin tenant create").needs, Capability::kTenantAdmin);
  EXPECT_EQ(At(table, "admin queue list").needs, Capability::kNone);
  EXPECT_EQ(At(table, "status").needs, Capability::kNone);
  EXPECT_EQ(Flag(At(table, "status"), "--why").needs, Capability::kScheduler);
  EXPECT_THAT(UnmatchedParts(table, entries_), IsEmpty());
}

TEST_F(CommandTableTest, APartThatNamesNothingIsASlip) {
  const std::vector<CommandEntry> slips = {
      {"status", nullptr, Capability::kNone, {{"--wy", Capability::kScheduler}}},
      {"admin", nullptr, Capability::kNone, {{"tenants", Capability::kTenantAdmin}}},
  };
  EXPECT_THAT(UnmatchedParts(ReadCommandTable(app_, slips), slips),
              ElementsAre("status --wy", "admin tenants"));
}

TEST_F(CommandTableTest, LineageRunsUpToDlpItself) {
  const std::vector<CommandInfo> table = ReadCommandTable(app_, entries_);
  std::vector<std::string> names;
  for (const CommandInfo* c : Lineage(table, {"admin", "tenant", "create"})) {
    names.push_back(c->Name());
  }
  EXPECT_THAT(names, ElementsAre("admin tenant create", "admin tenant", "admin", ""));
}

}  // namespace
}  // namespace dlp::cli
