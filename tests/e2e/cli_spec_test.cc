// Bad specs: `dlp validate` and `dlp submit` exit 2 with file:line, the field
// path and a did-you-mean, before any backend is contacted.
#include <sys/resource.h>

#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kHeader[] = "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: bad}\n";

TEST(CliSpec, ExampleJobIsValid) {
  CliEnv env;
  RunResult r = env.Dlp({"validate", std::string(DLP_SOURCE_DIR) + "/examples/hello/job.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("valid (job hello, 3 replicas)"));
}

TEST(CliSpec, UnknownFieldSuggestsTheClosestName) {
  CliEnv env;
  const std::string path = env.dir().WriteFile(
      "typo.yaml", std::string(kHeader) + "spec:\n  replica:\n    worker: {count: 1, command: [true]}\n");
  for (const char* command : {"validate", "submit"}) {
    RunResult r = env.Dlp({command, path});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("dlp: error: "));
    EXPECT_THAT(r.err, HasSubstr(path + ":5"));
    EXPECT_THAT(r.err, HasSubstr("did you mean 'replicas'?"));
  }
  // Nothing was submitted: no daemon was started for a bad spec.
  EXPECT_FALSE(FileExists(env.StateDir() + "/dlpd.addr"));
}

TEST(CliSpec, SyntaxErrorNamesLineAndColumn) {
  CliEnv env;
  const std::string path = env.dir().WriteFile(
      "syntax.yaml", std::string(kHeader) + "spec:\n  replicas: [unclosed\n");
  RunResult r = env.Dlp({"validate", path});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, ::testing::ContainsRegex("syntax\\.yaml:[0-9]+:[0-9]+"));
}

TEST(CliSpec, WrongValueNamesTheFieldPath) {
  CliEnv env;
  const std::string path = env.dir().WriteFile(
      "memory.yaml", std::string(kHeader) +
                         "spec:\n  replicas:\n    worker:\n      count: 1\n      command: [true]\n"
                         "      resources: {memory: 4GB}\n");
  RunResult r = env.Dlp({"validate", path});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("spec.replicas.worker.resources.memory"));
}

TEST(CliSpec, SetOverridesAreValidated) {
  CliEnv env;
  const std::string spec = std::string(DLP_SOURCE_DIR) + "/examples/hello/job.yaml";
  RunResult ok = env.Dlp({"validate", spec, "--set", "spec.replicas.worker.count=2"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("2 replicas"));
  RunResult bad = env.Dlp({"validate", spec, "--set", "spec.replicas.worker.count=0"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("count"));
}

TEST(CliSpec, ReadsStdinAndReportsMissingFiles) {
  CliEnv env;
  const std::string yaml = ReadFileOrEmpty(std::string(DLP_SOURCE_DIR) + "/examples/hello/job.yaml");
  RunResult r = env.Dlp({"validate", "-"}, yaml);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  RunResult missing = env.Dlp({"submit", "-f", env.dir().Join("missing.yaml")});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr("missing.yaml"));
}

TEST(CliSpec, RenderPrintsWhatTheBackendRuns) {
  CliEnv env;
  RunResult r = env.Dlp({"render", std::string(DLP_SOURCE_DIR) + "/examples/hello/job.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("worker"));
  RunResult bad = env.Dlp({"render", std::string(DLP_SOURCE_DIR) + "/examples/hello/job.yaml",
                           "--backend", "punchcards"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

TEST(CliSpec, SlurmRenderRefusesCpusPastTheMaximumWithoutCrashing) {
  CliEnv env;
  for (const char* cpu : {"4294967296", "3000000000"}) {
    const std::string path = env.dir().WriteFile(
        "cpu.yaml", std::string(kHeader) +
                        "spec:\n  replicas:\n    worker:\n      command: [true]\n"
                        "      resources: {cpu: \"" +
                        cpu + "\"}\n");
    RunResult r = env.Dlp({"render", "--backend", "slurm", path});
    EXPECT_EQ(r.signal, 0) << cpu;
    EXPECT_EQ(r.exit_code, 2) << cpu << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(path +
                                 ":8:24: spec.replicas.worker.resources.cpu: must be at "
                                 "most 4096 CPUs per replica, got " +
                                 cpu));
    EXPECT_THAT(r.out, Not(HasSubstr("cpus-per-task")));
  }
}

TEST(CliSpec, NulAndInvalidUtf8AreRefusedWithTheirPosition) {
  CliEnv env;
  const std::string nul = env.dir().WriteFile("nul.yaml", std::string(kHeader) +
                                                              "spec:\n  replicas:\n    worker:\n"
                                                              "      command: [sh, \"a\\0b\"]\n");
  for (const char* command : {"validate", "render"}) {
    RunResult r = env.Dlp({command, nul});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(nul + ":7:21: spec.replicas.worker.command[1]: holds a NUL byte"));
  }
  const std::string utf8 =
      env.dir().WriteFile("utf8.yaml", std::string(kHeader) +
                                           "spec:\n  replicas:\n    worker:\n"
                                           "      command: [echo, caf\xc3\xa9\xff]\n");
  RunResult r = env.Dlp({"validate", utf8});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr(utf8 + ":7:27: invalid UTF-8 (byte 0xff)"));
}

TEST(CliSpec, AliasBombIsRefusedWithinBoundedMemory) {
  CliEnv env;
  // One 100 KB string aliased 2,000 times: a 108 KB file.
  std::string yaml = std::string(kHeader) +
                     "spec:\n  replicas:\n    worker:\n      command: [x]\n"
                     "      env: {A: &b " +
                     std::string(100 << 10, 'x') + "}\n    ps:\n      command: [x";
  for (int i = 1; i <= 2000; ++i) yaml += ", *b";
  yaml += "]\n";
  const std::string path = env.dir().WriteFile("bomb.yaml", yaml);
  RunResult r = env.Dlp({"validate", path});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("aliases (*name) expanded"));
  // Expanded, the file takes 200 MB; refused, dlp stays small. ru_maxrss of
  // the children is the largest child's: this dlp or a smaller one before it.
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  EXPECT_LT(children.ru_maxrss, 100 << 10) << "KiB";
}

}  // namespace
}  // namespace dlp::testing
