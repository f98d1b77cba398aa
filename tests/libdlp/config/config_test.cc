#include "dlp/config.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/temp_dir.h"

namespace dlp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_.has_value()) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class ConfigTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  ScopedEnv no_config_{"DLP_CONFIG", nullptr};
  ScopedEnv no_context_{"DLP_CONTEXT", nullptr};
  ScopedEnv xdg_config_{"XDG_CONFIG_HOME", nullptr};
  ScopedEnv xdg_state_{"XDG_STATE_HOME", nullptr};
  ScopedEnv home_{"HOME", "/home/someone"};
};

constexpr char kThreeContexts[] = R"(current-context: hpc
contexts:
  - {name: local, backend: local}
  - {name: hpc, backend: slurm, partition: debug}
  - name: team
    backend: remote
    server: "https://gpu-box:8470"
    token-file: ~/.config/dlp/team.token
)";

TEST_F(ConfigTest, MissingFileGivesTheLocalContext) {
  auto config = LoadConfig(dir_.Join("none.yaml"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->path, "");
  EXPECT_EQ(config->current_context, "local");
  ASSERT_EQ(config->contexts.size(), 1u);
  EXPECT_EQ(config->contexts[0].name, "local");
  EXPECT_EQ(config->contexts[0].backend, "local");
  auto context = ResolveContext(*config);
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ(context->backend, "local");
}

TEST_F(ConfigTest, ReadsContextsAndTheirFields) {
  const std::string path = dir_.WriteFile("config.yaml", kThreeContexts);
  auto config = LoadConfig(path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->path, path);
  EXPECT_EQ(config->current_context, "hpc");
  ASSERT_EQ(config->contexts.size(), 3u);
  EXPECT_EQ(config->contexts[1].Field("partition"), "debug");
  EXPECT_EQ(config->contexts[2].Field("server"), "https://gpu-box:8470");
  EXPECT_EQ(config->contexts[2].Field("token-file"), "~/.config/dlp/team.token");
  EXPECT_EQ(config->contexts[2].Field("absent", "fallback"), "fallback");

  auto current = ResolveContext(*config);
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(current->name, "hpc");
  EXPECT_EQ(current->backend, "slurm");
  auto named = ResolveContext(*config, "team");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->backend, "remote");
}

TEST_F(ConfigTest, EnvironmentPicksFileAndContext) {
  const std::string path = dir_.WriteFile("elsewhere.yaml", kThreeContexts);
  ScopedEnv config_env("DLP_CONFIG", path.c_str());
  EXPECT_EQ(DefaultConfigPath(), path);
  EXPECT_EQ(DefaultConfigPath("/explicit.yaml"), "/explicit.yaml");
  auto config = LoadConfig();
  ASSERT_TRUE(config.ok()) << config.status();

  ScopedEnv context_env("DLP_CONTEXT", "team");
  EXPECT_EQ(ResolveContext(*config)->name, "team");
  EXPECT_EQ(ResolveContext(*config, "local")->name, "local");  // an explicit name wins
}

TEST_F(ConfigTest, DefaultPathsFollowXdg) {
  EXPECT_EQ(DefaultConfigPath(), "/home/someone/.config/dlp/config.yaml");
  EXPECT_EQ(DefaultStateDir(), "/home/someone/.local/state/dlp");
  ScopedEnv config_home("XDG_CONFIG_HOME", "/xdg/config");
  ScopedEnv state_home("XDG_STATE_HOME", "/xdg/state");
  EXPECT_EQ(DefaultConfigPath(), "/xdg/config/dlp/config.yaml");
  EXPECT_EQ(DefaultStateDir(), "/xdg/state/dlp");
}

TEST_F(ConfigTest, UnknownContextListsTheKnownOnes) {
  auto config = LoadConfig(dir_.WriteFile("config.yaml", kThreeContexts));
  ASSERT_TRUE(config.ok());
  auto context = ResolveContext(*config, "gpu");
  EXPECT_EQ(context.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(context.status().message(), HasSubstr("no context named 'gpu'"));
  EXPECT_THAT(context.status().message(), HasSubstr("local, hpc, team"));
}

TEST_F(ConfigTest, LocalExistsEvenWhenNotListed) {
  auto config = LoadConfig(dir_.WriteFile("config.yaml",
                                          "contexts:\n  - {name: team, backend: remote}\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  auto context = ResolveContext(*config);  // no current-context: "local"
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ(context->backend, "local");
}

struct BadConfig {
  const char* yaml;
  const char* message;
};

class BadConfigTest : public ConfigTest, public ::testing::WithParamInterface<BadConfig> {};

TEST_P(BadConfigTest, NamesFileLineAndColumn) {
  const std::string path = dir_.WriteFile("config.yaml", GetParam().yaml);
  auto config = LoadConfig(path);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(config.status().message()),
              HasSubstr(path + ":" + GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Errors, BadConfigTest,
    ::testing::Values(
        BadConfig{"contexts:\n  - {name: a, backend: local\n", "3:1: "},
        BadConfig{"contexts:\n  - {backend: local}\n", "2:5: contexts[0].name: required"},
        BadConfig{"contexts:\n  - {name: a}\n", "2:5: contexts[0].backend: required"},
        BadConfig{"contexts: {name: a}\n", "1:11: contexts: expected a list"},
        BadConfig{"context: []\n", "1:1: unknown key 'context'"},
        BadConfig{"contexts:\n  - name: a\n    backend: local\n    labels: [x]\n",
                  "4:13: contexts[0].labels: expected a single value"},
        BadConfig{"contexts:\n  - {name: a, backend: local}\n  - {name: a, backend: slurm}\n",
                  "3:5: contexts[1].name: 'a' is defined twice"},
        BadConfig{"- a\n- b\n", "1:1: expected a map at the top level"}));

TEST_F(ConfigTest, SaveIsAtomicAndRoundTrips) {
  Config config;
  config.path = dir_.Join("sub/config.yaml");
  config.current_context = "team";
  config.contexts.push_back({"local", "local", {{"state-dir", "/tmp/x"}}});
  config.contexts.push_back({"team", "remote", {{"server", "https://h:1"}, {"token", "t"}}});
  ASSERT_TRUE(SaveConfig(config).ok());

  struct stat st;
  ASSERT_EQ(stat(config.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // it may hold a token
  auto loaded = LoadConfig(config.path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->current_context, "team");
  ASSERT_EQ(loaded->contexts.size(), 2u);
  EXPECT_EQ(loaded->contexts[0].Field("state-dir"), "/tmp/x");
  EXPECT_EQ(loaded->contexts[1].fields,
            (std::map<std::string, std::string>{{"server", "https://h:1"}, {"token", "t"}}));
  // No temporary file is left behind.
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.Join("sub"))) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_THAT(names, ElementsAre("config.yaml"));
}

TEST_F(ConfigTest, SaveWithoutPathWritesTheDefaultFile) {
  ScopedEnv config_home("XDG_CONFIG_HOME", dir_.path().c_str());
  auto config = LoadConfig();
  ASSERT_TRUE(config.ok());
  config->current_context = "local";
  ASSERT_TRUE(SaveConfig(*config).ok());
  auto loaded = LoadConfig();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->path, dir_.Join("dlp/config.yaml"));
}

}  // namespace
}  // namespace dlp
