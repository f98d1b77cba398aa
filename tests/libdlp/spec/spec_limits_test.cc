// The bounds of dlp-job(5) (docs/limits.md) on every reader: YAML with
// positions, ValidateJobSpec on specs built in code, and the JSON of the API;
// NUL and invalid UTF-8 refused, never changed; YAML aliases on a budget.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "dlp/codec.h"
#include "dlp/spec.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;

// Lines 1-8; `more` continues the worker (indented 6) or adds spec fields.
std::string Worker(const std::string& more = "", const std::string& command = "[python3, x.py]") {
  return absl::StrCat(
      "apiVersion: dlp/v1\nkind: Job\nmetadata:\n  name: big\nspec:\n  replicas:\n    worker:\n",
      "      command: ", command, "\n", more);
}

std::string Error(const std::string& yaml) {
  absl::StatusOr<JobSpec> spec = ParseJobSpec(yaml, "job.yaml");
  EXPECT_FALSE(spec.ok()) << yaml.substr(0, 300);
  if (spec.ok()) return "";
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(spec.status().message());
}

TEST(SpecLimits, QuantitiesPastTheirMaximum) {
  EXPECT_THAT(Error(Worker("      resources: {cpu: \"4294967296\"}\n")),
              HasSubstr("job.yaml:9:24: spec.replicas.worker.resources.cpu: must be at most "
                        "4096 CPUs per replica, got 4294967296"));
  EXPECT_THAT(Error(Worker("      resources: {cpu: 4611686018427387904m}\n")),
              HasSubstr("resources.cpu: must be at most 4096 CPUs per replica"));
  EXPECT_THAT(Error(Worker("      resources: {memory: \"4611686018427387904\"}\n")),
              HasSubstr("job.yaml:9:27: spec.replicas.worker.resources.memory: must be at most "
                        "16Ti per replica, got 4Ei"));
  EXPECT_THAT(Error(Worker("      resources: {memory: \"4611686018427387905\"}\n")),
              HasSubstr("resources.memory: \"4611686018427387905\" is not a memory quantity; "
                        "expected e.g. 512Mi, 4Gi (binary) or 4G; it is too large"));
  EXPECT_THAT(Error(Worker("      resources: {memory: 17Ti}\n")),
              HasSubstr("must be at most 16Ti per replica, got 17Ti"));
  EXPECT_THAT(Error(Worker("      count: 1024\n    ps: {count: 1024, command: [x]}\n"
                           "    evaluator: {count: 1, command: [x]}\n")),
              HasSubstr("job.yaml:7:5: spec.replicas: 2049 replicas in all roles together; "
                        "at most 2048"));
  EXPECT_THAT(Error(Worker("  activeDeadlineSeconds: 40000000\n")),
              HasSubstr("spec.activeDeadlineSeconds: must be at most 31622400 seconds"));
  EXPECT_TRUE(ParseJobSpec(Worker("      count: 1024\n      resources: {cpu: 4096, memory: 16Ti}\n"
                                  "    ps: {count: 1024, command: [x]}\n"),
                           "job.yaml")
                  .ok());
}

TEST(SpecLimits, SizesOfNamesEnvironmentAndCommand) {
  std::string labels = "  labels:\n";
  for (int i = 0; i < 65; ++i) absl::StrAppend(&labels, "    l", i, ": v\n");
  std::string yaml = Worker();
  yaml.insert(yaml.find("spec:\n"), labels);
  EXPECT_THAT(Error(yaml), HasSubstr("job.yaml:6:5: metadata.labels: 65 labels; at most 64"));

  std::string env = "      env:\n";
  for (int i = 0; i < 200; ++i) absl::StrAppend(&env, "        V", i, ": x\n");
  std::string shared = "  env:\n";
  for (int i = 0; i < 57; ++i) absl::StrAppend(&shared, "    S", i, ": x\n");
  EXPECT_THAT(Error(Worker(env + shared)),
              HasSubstr("spec.replicas.worker.env: 257 environment variables (spec.env "
                        "included); at most 256"));
  EXPECT_THAT(Error(Worker(absl::StrCat("      env: {A: ", std::string(140 << 10, 'x'), "}\n"))),
              HasSubstr("spec.replicas.worker.env: the environment takes 143363 bytes (spec.env "
                        "included); at most 131072"));
  EXPECT_THAT(Error(Worker(absl::StrCat("      env: {", std::string(300, 'N'), ": x}\n"))),
              HasSubstr("an environment variable name of 300 characters; at most 256"));

  std::string args = "[x";
  for (int i = 0; i < 1024; ++i) args += ", a";
  EXPECT_THAT(Error(Worker("", args + "]")),
              HasSubstr("job.yaml:8:16: spec.replicas.worker.command: 1025 arguments; at most "
                        "1024"));
  EXPECT_THAT(Error(Worker("", absl::StrCat("[x, ", std::string(130 << 10, 'a'), "]"))),
              HasSubstr("spec.replicas.worker.command: the command takes 133123 bytes; at most "
                        "131072 (128 KiB)"));
  EXPECT_THAT(Error(Worker(absl::StrCat("  workdir: /", std::string(5000, 'd'), "\n"))),
              HasSubstr("spec.workdir: a path of 5001 bytes; at most 4096"));
}

TEST(SpecLimits, DocumentSize) {
  const std::string yaml = Worker(absl::StrCat("# ", std::string(1 << 20, 'c'), "\n"));
  EXPECT_THAT(Error(yaml), HasSubstr("job.yaml: the spec is larger than 1 MiB (1048576 bytes)"));
}

TEST(SpecLimits, NulAndInvalidUtf8AreRefusedWithTheirPosition) {
  // A YAML escape: "a\0b" must not run as "a".
  EXPECT_THAT(Error(Worker("", R"([sh, "a\0b"])")),
              HasSubstr("job.yaml:8:21: spec.replicas.worker.command[1]: holds a NUL byte at "
                        "byte 1; text must be UTF-8 without NUL"));
  // An unpaired surrogate escape is not UTF-8 (yaml-cpp refuses it itself).
  EXPECT_THAT(Error(Worker("      env: {A: \"\\ud800\"}\n")),
              HasSubstr("job.yaml:9:23: YAML syntax error: invalid unicode: 55296"));
  // Raw bytes in the file: never replaced with U+FFFD.
  EXPECT_THAT(Error(Worker("", "[echo, caf\xc3\xa9\xff]")),
              HasSubstr("job.yaml:8:27: invalid UTF-8 (byte 0xff); a spec is UTF-8 text "
                        "without NUL bytes"));
  EXPECT_THAT(Error(Worker("", std::string("[echo, a\0b]", 11))),
              HasSubstr("job.yaml:8:24: a NUL byte; a spec is UTF-8 text without NUL bytes"));
  EXPECT_THAT(Error(Worker("", "[echo, \xc0\xaf]")),  // an overlong '/'
              HasSubstr("job.yaml:8:23: invalid UTF-8 (byte 0xc0)"));
  // Valid UTF-8 everywhere is fine, kept as written.
  absl::StatusOr<JobSpec> ok = ParseJobSpec(Worker("", "[echo, café, 日本, \"\\u00e9\"]"), "j");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->replicas[0].command[1], "café");
  EXPECT_EQ(ok->replicas[0].command[3], "é");
}

// One 100 KB string aliased 2,000 times: 108 KB of YAML, 200 MB expanded.
std::string AliasBomb() {
  std::string yaml = Worker(absl::StrCat("      env: {A: &b ", std::string(100 << 10, 'x'),
                                         "}\n    ps:\n      command: [x"));
  for (int i = 1; i <= 2000; ++i) yaml += ", *b";
  return yaml + "]\n";
}

long MaxRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// yaml-cpp 0.7's LoadAll loops without end (allocating) on these; the
// reader must return an error instead.
TEST(SpecLimits, TextsThatNeverEndAYamlStreamAreRefused) {
  for (const char* yaml : {",", ",\n", "a: 1\n,"}) {
    absl::StatusOr<JobSpec> spec = ParseJobSpec(yaml, "job.yaml");
    EXPECT_FALSE(spec.ok()) << yaml;
  }
  absl::StatusOr<JobSpec> two = ParseJobSpec(
      Worker("", "[\"true\"]") + "---\napiVersion: dlp/v1\n", "job.yaml");
  ASSERT_FALSE(two.ok());
  EXPECT_THAT(std::string(two.status().message()), ::testing::HasSubstr("second YAML document"));
}

TEST(SpecLimits, AliasExpansionIsOnABudget) {
  const std::string bomb = AliasBomb();
  ASSERT_LT(bomb.size(), 110u << 10);
  const long before = MaxRssKib();
  EXPECT_THAT(Error(bomb), HasSubstr("job.yaml:9:16: spec.replicas.ps.command[40]: the document "
                                     "holds more than 4 MiB of text with its aliases (*name) "
                                     "expanded"));
  // Refused before the expansion was built: far below the 200 MB it would take.
  EXPECT_LT(MaxRssKib() - before, 64 << 10);

  // Nested aliases (a billion laughs) stop at the node budget.
  std::string laughs = "x0: &a0 [l, l, l, l, l, l, l, l, l, l]\n";
  for (int i = 1; i < 10; ++i) {
    absl::StrAppend(&laughs, "x", i, ": &a", i, " [");
    for (int k = 0; k < 10; ++k) absl::StrAppend(&laughs, k ? ", " : "", "*a", i - 1);
    absl::StrAppend(&laughs, "]\n");
  }
  EXPECT_THAT(Error(laughs), HasSubstr("more than 100000 nodes with its aliases (*name) expanded"));

  // Anchors as people use them still work.
  absl::StatusOr<JobSpec> shared = ParseJobSpec(R"(apiVersion: dlp/v1
kind: Job
metadata: {name: anchors}
spec:
  replicas:
    chief: {command: [python3, t.py], env: &env {A: "1", B: "2"}, resources: &res {cpu: 2}}
    worker: {count: 4, command: [python3, t.py], env: *env, resources: *res}
)",
                                                "job.yaml");
  ASSERT_TRUE(shared.ok()) << shared.status();
  EXPECT_EQ(shared->replicas[1].env.at("B"), "2");
  EXPECT_EQ(shared->replicas[1].resources.cpu_millis, 2000);
}

TEST(SpecLimits, ValidateJobSpecAppliesTheSameBounds) {
  JobSpec spec;
  spec.name = "code";
  ReplicaSpec worker{"worker", 2, {"sh", std::string("a\0b", 3)}, {}, {}};
  worker.resources.cpu_millis = int64_t{4611686018427387904};
  worker.resources.memory_bytes = int64_t{4611686018427387905};
  worker.env["V"] = "caf\xff";
  spec.replicas = {worker};
  const std::string message(ValidateJobSpec(spec).message());
  EXPECT_THAT(message, HasSubstr("spec.replicas.worker.command: [1]: holds a NUL byte at byte 1"));
  EXPECT_THAT(message, HasSubstr("spec.replicas.worker.env: V: holds invalid UTF-8 (byte 0xff)"));
  EXPECT_THAT(message, HasSubstr("resources.cpu: must be at most 4096 CPUs per replica"));
  EXPECT_THAT(message, HasSubstr("resources.memory: must be at most 16Ti per replica"));
  spec.replicas = std::vector<ReplicaSpec>(5, ReplicaSpec{"worker", 1, {"x"}, {}, {}});
  EXPECT_THAT(ValidateJobSpec(spec).message(), HasSubstr("spec.replicas: 5 roles"));
  // Many problems: a short answer, as for YAML.
  spec.replicas.resize(1);
  for (int i = 0; i < 5000; ++i) spec.labels[absl::StrCat("-bad", i)] = "v";
  const std::string many(ValidateJobSpec(spec).message());
  EXPECT_THAT(many, HasSubstr("metadata.labels: 5000 labels; at most 64"));
  EXPECT_THAT(many, HasSubstr("\n... and 4981 more problems"));
  EXPECT_LT(many.size(), 8000u);
}

TEST(SpecLimits, JsonReaderRefusesNulInvalidUtf8AndHugeNumbers) {
  auto error = [](const std::string& json) {
    absl::StatusOr<JobSpec> spec = JobSpecFromJson(json);
    EXPECT_FALSE(spec.ok()) << json;
    return std::string(spec.status().message());
  };
  EXPECT_THAT(error("{\"name\":\"x\",\n \"replicas\":[{\"command\":[\"a\\u0000b\"]}]}"),
              HasSubstr("line 2, column 28: a NUL (\\u0000) in a string"));
  EXPECT_THAT(error("{\"name\":\"caf\xc3\xa9\xff\"}"), HasSubstr("ill-formed UTF-8"));
  EXPECT_THAT(error("{\"name\":\"caf\xc3\xa9\xff\"}"), HasSubstr("line 1, column"));
  EXPECT_THAT(error(R"({"replicas":[{"resources":{"memory":18446744073709551615}}]})"),
              HasSubstr("replicas[0].resources.memory: \"18446744073709551615\" is not a memory "
                        "quantity; expected e.g. 512Mi, 4Gi (binary) or 4G; it is too large"));
  EXPECT_THAT(error(R"({"replicas":[{"resources":{"cpu":1e300}}]})"),
              HasSubstr("replicas[0].resources.cpu: \"1e+300\" is not a CPU quantity"));
  EXPECT_THAT(error(R"({"activeDeadlineSeconds":9223372036854775808})"),
              HasSubstr("activeDeadlineSeconds: 9223372036854775808 is out of range"));
  EXPECT_THAT(error(absl::StrCat("{\"name\":\"", std::string(1 << 20, 'n'), "\"}")),
              HasSubstr("bytes; at most 1048576 (1 MiB)"));
  // An escaped backslash before "u0000" is not a NUL.
  EXPECT_TRUE(JobSpecFromJson(R"({"name":"a\\u0000"})").ok());
}

}  // namespace
}  // namespace dlp
