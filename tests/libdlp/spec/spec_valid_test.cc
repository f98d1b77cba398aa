// Valid job specs: defaults, quantities, overrides, stdin and workdir handling.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "dlp/codec.h"
#include "dlp/spec.h"
#include "support/temp_dir.h"

namespace dlp {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

constexpr char kMinimal[] = R"(apiVersion: dlp/v1
kind: Job
metadata: {name: tiny}
spec:
  replicas:
    worker: {command: [echo, hi]}
)";

constexpr char kFull[] = R"(apiVersion: dlp/v1
kind: Job
metadata:
  name: mnist
  labels: {team: vision, example.com/tier: gold}
spec:
  framework: pytorch
  queue: gpu-queue
  priority: 5
  env: {SHARED: "1", OVERRIDDEN: base}
  replicas:
    evaluator: {count: 1, command: [python3, eval.py]}
    worker:
      count: 4
      command: [python3, train.py, --lr, "0.1", 0.01, true]
      env: {A: b, OVERRIDDEN: worker}
      resources: {cpu: 0.5, memory: 2Gi, gpu: 1}
    ps: {count: 2, command: [python3, ps.py], resources: {cpu: 250m, memory: 4G}}
    chief: {count: 1, command: [python3, chief.py], resources: {cpu: 2}}
  workdir: /srv/project
  image: registry.example.com/ml/train:1.0
  restartPolicy: {policy: OnFailure, maxRestarts: 5, backoffSeconds: 7}
  activeDeadlineSeconds: 3600
)";

std::string Cwd() { return std::filesystem::current_path().string(); }

JobSpec MustParse(const std::string& yaml, const std::string& file = "/specs/job.yaml",
                  const SpecOptions& options = {}) {
  absl::StatusOr<JobSpec> spec = ParseJobSpec(yaml, file, options);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : JobSpec{};
}

TEST(SpecValid, MinimalSpecTakesDocumentedDefaults) {
  JobSpec spec = MustParse(kMinimal);
  EXPECT_EQ(spec.name, "tiny");
  EXPECT_TRUE(spec.labels.empty());
  EXPECT_EQ(spec.framework, Framework::kNone);
  EXPECT_EQ(spec.queue, "default");
  EXPECT_EQ(spec.priority, 0);
  ASSERT_EQ(spec.replicas.size(), 1u);
  const ReplicaSpec& w = spec.replicas[0];
  EXPECT_EQ(w.role, "worker");
  EXPECT_EQ(w.count, 1);
  EXPECT_THAT(w.command, ElementsAre("echo", "hi"));
  EXPECT_TRUE(w.env.empty());
  EXPECT_EQ(w.resources.cpu_millis, 1000);
  EXPECT_EQ(w.resources.memory_bytes, 0);
  EXPECT_EQ(w.resources.gpu_millis, 0);
  EXPECT_EQ(spec.workdir, "/specs");  // the spec file's folder
  EXPECT_EQ(spec.restart_policy.policy, RestartPolicyKind::kNever);
  EXPECT_EQ(spec.restart_policy.max_restarts, 0);
  EXPECT_EQ(spec.restart_policy.backoff_seconds, 0);
  EXPECT_EQ(spec.active_deadline_seconds, 0);
  EXPECT_TRUE(ValidateJobSpec(spec).ok());
}

TEST(SpecValid, FullSpecEveryField) {
  JobSpec spec = MustParse(kFull);
  EXPECT_EQ(spec.name, "mnist");
  EXPECT_THAT(spec.labels, ElementsAre(Pair("example.com/tier", "gold"), Pair("team", "vision")));
  EXPECT_EQ(spec.framework, Framework::kPyTorch);
  EXPECT_EQ(spec.queue, "gpu-queue");
  EXPECT_EQ(spec.priority, 5);
  ASSERT_EQ(spec.replicas.size(), 4u);
  // Canonical order whatever the file's order: chief, ps, worker, evaluator.
  EXPECT_EQ(spec.replicas[0].role, "chief");
  EXPECT_EQ(spec.replicas[1].role, "ps");
  EXPECT_EQ(spec.replicas[2].role, "worker");
  EXPECT_EQ(spec.replicas[3].role, "evaluator");
  const ReplicaSpec& w = spec.replicas[2];
  EXPECT_EQ(w.count, 4);
  // Scalars are taken as written: numbers and booleans stay text.
  EXPECT_THAT(w.command, ElementsAre("python3", "train.py", "--lr", "0.1", "0.01", "true"));
  EXPECT_THAT(w.env,
              ElementsAre(Pair("A", "b"), Pair("OVERRIDDEN", "worker"), Pair("SHARED", "1")));
  EXPECT_EQ(w.resources.cpu_millis, 500);
  EXPECT_EQ(w.resources.memory_bytes, 2LL << 30);
  EXPECT_EQ(w.resources.gpu_millis, 1000);
  EXPECT_THAT(spec.replicas[1].env, ElementsAre(Pair("OVERRIDDEN", "base"), Pair("SHARED", "1")));
  EXPECT_EQ(spec.replicas[1].resources.cpu_millis, 250);
  EXPECT_EQ(spec.replicas[1].resources.memory_bytes, 4000000000LL);
  EXPECT_EQ(spec.replicas[0].resources.cpu_millis, 2000);
  EXPECT_EQ(spec.workdir, "/srv/project");
  EXPECT_EQ(spec.image, "registry.example.com/ml/train:1.0");
  EXPECT_EQ(spec.restart_policy.policy, RestartPolicyKind::kOnFailure);
  EXPECT_EQ(spec.restart_policy.max_restarts, 5);
  EXPECT_EQ(spec.restart_policy.backoff_seconds, 7);
  EXPECT_EQ(spec.active_deadline_seconds, 3600);
}

TEST(SpecValid, RestartingPoliciesDefaultToThreeRestarts) {
  for (const char* policy : {"OnFailure", "ExitCode"}) {
    JobSpec spec = MustParse(std::string(kMinimal) + "  restartPolicy: {policy: " + policy + "}\n");
    EXPECT_EQ(spec.restart_policy.max_restarts, 3) << policy;
  }
  JobSpec spec = MustParse(std::string(kMinimal) + "  restartPolicy: {policy: ExitCode}\n");
  EXPECT_EQ(spec.restart_policy.policy, RestartPolicyKind::kExitCode);
}

TEST(SpecValid, EveryFrameworkName) {
  const std::pair<const char*, Framework> cases[] = {{"pytorch", Framework::kPyTorch},
                                                     {"tensorflow", Framework::kTensorFlow},
                                                     {"horovod", Framework::kHorovod},
                                                     {"jax", Framework::kJax},
                                                     {"none", Framework::kNone}};
  for (const auto& [name, framework] : cases) {
    JobSpec spec = MustParse(std::string(kMinimal) + "  framework: " + name + "\n");
    EXPECT_EQ(spec.framework, framework) << name;
  }
}

TEST(SpecValid, QuantitiesInEveryAcceptedForm) {
  const std::pair<const char*, int64_t> cpus[] = {
      {"1", 1000}, {"0.5", 500}, {"\"500m\"", 500}, {"2.25", 2250}, {"100m", 100}};
  for (const auto& [text, millis] : cpus) {
    JobSpec spec =
        MustParse(kMinimal, "/specs/job.yaml",
                  {.overrides = {std::string("spec.replicas.worker.resources.cpu=") + text}});
    EXPECT_EQ(spec.replicas[0].resources.cpu_millis, millis) << text;
  }
  const std::pair<const char*, int64_t> memories[] = {{"512Mi", 512LL << 20}, {"4Gi", 4LL << 30},
                                                      {"4G", 4000000000LL},   {"1000", 1000},
                                                      {"1.5Gi", 1610612736},  {"1e9", 1000000000}};
  for (const auto& [text, bytes] : memories) {
    JobSpec spec =
        MustParse(kMinimal, "/specs/job.yaml",
                  {.overrides = {std::string("spec.replicas.worker.resources.memory=") + text}});
    EXPECT_EQ(spec.replicas[0].resources.memory_bytes, bytes) << text;
  }
}

TEST(SpecValid, PriorityClassNamesAreStoredAsTheirIntegers) {
  const std::pair<const char*, int> classes[] = {{"low", -100},      {"normal", 0}, {"high", 100},
                                                 {"critical", 1000}, {"-7", -7},    {"42", 42}};
  for (const auto& [text, value] : classes) {
    JobSpec spec = MustParse(std::string(kMinimal) + "  priority: " + text + "\n");
    EXPECT_EQ(spec.priority, value) << text;
    // Stored canonically: the integer comes back through both codecs.
    absl::StatusOr<JobSpec> json = JobSpecFromJson(JobSpecToJson(spec));
    ASSERT_TRUE(json.ok()) << json.status();
    EXPECT_EQ(json->priority, value) << text;
    EXPECT_EQ(MustParse(JobSpecToYaml(spec)).priority, value) << text;
  }
  JobSpec set = MustParse(kMinimal, "/specs/job.yaml", {.overrides = {"spec.priority=critical"}});
  EXPECT_EQ(set.priority, 1000);
}

TEST(SpecValid, OverridesEditTheDocumentBeforeValidation) {
  SpecOptions options;
  options.overrides = {
      "spec.replicas.worker.count=8",
      "metadata.labels.team=nlp",                   // creates metadata.labels
      "spec.restartPolicy.policy=OnFailure",        // creates spec.restartPolicy
      "spec.replicas.ps.command=[python3, ps.py]",  // a whole new role, YAML flow value
      "spec.replicas.worker.command.1=bye",         // a list element by index
      "spec.replicas.worker.command.2=again",       // one past the end appends
      "spec.replicas.worker.env={X: y}",
  };
  JobSpec spec = MustParse(kMinimal, "/specs/job.yaml", options);
  ASSERT_EQ(spec.replicas.size(), 2u);
  EXPECT_EQ(spec.replicas[0].role, "ps");
  EXPECT_THAT(spec.replicas[0].command, ElementsAre("python3", "ps.py"));
  EXPECT_EQ(spec.replicas[1].count, 8);
  EXPECT_THAT(spec.replicas[1].command, ElementsAre("echo", "bye", "again"));
  EXPECT_THAT(spec.replicas[1].env, ElementsAre(Pair("X", "y")));
  EXPECT_THAT(spec.labels, ElementsAre(Pair("team", "nlp")));
  EXPECT_EQ(spec.restart_policy.policy, RestartPolicyKind::kOnFailure);
  EXPECT_EQ(spec.restart_policy.max_restarts, 3);
}

TEST(SpecValid, LaterOverrideWinsAndEmptyValueRestoresDefault) {
  JobSpec spec = MustParse(kFull, "/specs/job.yaml",
                           {.overrides = {"spec.priority=1", "spec.priority=9",
                                          "spec.queue=", "spec.replicas.worker.resources.cpu="}});
  EXPECT_EQ(spec.priority, 9);
  EXPECT_EQ(spec.queue, "default");
  EXPECT_EQ(spec.replicas[2].resources.cpu_millis, 1000);
}

TEST(SpecValid, NameOptionReplacesOrSuppliesMetadataName) {
  EXPECT_EQ(MustParse(kMinimal, "/a/b.yaml", {.name = "renamed"}).name, "renamed");
  const std::string nameless = R"(apiVersion: dlp/v1
kind: Job
metadata: {}
spec: {replicas: {worker: {command: [a]}}}
)";
  EXPECT_EQ(MustParse(nameless, "/a/b.yaml", {.name = "given"}).name, "given");
}

TEST(SpecValid, NullValuesMeanDefaults) {
  const std::string yaml = R"(apiVersion: dlp/v1
kind: Job
metadata: {name: n, labels: ~}
spec:
  framework:
  priority: ~
  replicas:
    worker: {command: [a], env: ~, resources: {cpu: ~}}
  restartPolicy:
)";
  JobSpec spec = MustParse(yaml);
  EXPECT_EQ(spec.framework, Framework::kNone);
  EXPECT_EQ(spec.priority, 0);
  EXPECT_EQ(spec.replicas[0].resources.cpu_millis, 1000);
}

TEST(SpecValid, AnchorsAndCommentsWork) {
  const std::string yaml = R"(# a comment
apiVersion: dlp/v1
kind: Job
metadata: {name: anchors}
spec:
  replicas:
    worker: &base
      count: 2
      command: [python3, train.py]   # trailing comment
      resources: {cpu: 1, memory: 1Gi}
    evaluator: *base
)";
  JobSpec spec = MustParse(yaml);
  ASSERT_EQ(spec.replicas.size(), 2u);
  EXPECT_EQ(spec.replicas[1].role, "evaluator");
  EXPECT_EQ(spec.replicas[1].count, 2);
  EXPECT_EQ(spec.replicas[1].resources.memory_bytes, 1LL << 30);
}

TEST(SpecValid, WorkdirResolvesAgainstTheSpecFilesFolder) {
  auto workdir = [](const std::string& value, const std::string& file) {
    return MustParse(std::string(kMinimal) + "  workdir: " + value + "\n", file).workdir;
  };
  EXPECT_EQ(workdir(".", "/specs/job.yaml"), "/specs");
  EXPECT_EQ(workdir("data", "/specs/job.yaml"), "/specs/data");
  EXPECT_EQ(workdir("../data/./x/", "/specs/sub/job.yaml"), "/specs/data/x");
  EXPECT_EQ(workdir("/abs/dir", "/specs/job.yaml"), "/abs/dir");
  // A relative spec path resolves against the current folder.
  EXPECT_EQ(MustParse(kMinimal, "sub/job.yaml").workdir, Cwd() + "/sub");
  EXPECT_EQ(workdir("data", "job.yaml"), Cwd() + "/data");
}

TEST(SpecValid, StdinResolvesAgainstTheCurrentFolder) {
  EXPECT_EQ(MustParse(kMinimal, "-").workdir, Cwd());
  EXPECT_EQ(MustParse(std::string(kMinimal) + "  workdir: data\n", "-").workdir, Cwd() + "/data");
  // LoadJobSpec("-") reads standard input.
  std::istringstream input(kMinimal);
  std::streambuf* saved = std::cin.rdbuf(input.rdbuf());
  absl::StatusOr<JobSpec> spec = LoadJobSpec("-", {.overrides = {"spec.replicas.worker.count=3"}});
  std::cin.rdbuf(saved);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->replicas[0].count, 3);
  EXPECT_EQ(spec->workdir, Cwd());
}

TEST(SpecValid, LoadJobSpecReadsAFile) {
  testing::TempDir dir;
  const std::string path = dir.WriteFile("jobs/train.yaml", kFull);
  absl::StatusOr<JobSpec> spec = LoadJobSpec(path);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name, "mnist");
  absl::StatusOr<JobSpec> tiny = LoadJobSpec(dir.WriteFile("jobs/tiny.yaml", kMinimal));
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  EXPECT_EQ(tiny->workdir, std::filesystem::path(dir.path()).lexically_normal().string() + "/jobs");
}

TEST(SpecValid, ValidateAcceptsASpecBuiltInCode) {
  JobSpec spec;
  spec.name = "built";
  spec.replicas.push_back({.role = "chief", .count = 1, .command = {"a"}});
  spec.replicas.push_back({.role = "worker", .count = 3, .command = {"b"}});
  spec.workdir = "/tmp";
  spec.restart_policy = {.policy = RestartPolicyKind::kOnFailure, .max_restarts = 2};
  EXPECT_TRUE(ValidateJobSpec(spec).ok());
  spec.workdir = "";  // a backend's choice
  EXPECT_TRUE(ValidateJobSpec(spec).ok());
}

// The examples in dlp-job(5) must be valid specs.
TEST(SpecValid, ManPageExamplesParse) {
  std::ifstream in(std::string(DLP_SOURCE_DIR) + "/man/dlp-job.5");
  ASSERT_TRUE(in) << "man/dlp-job.5 missing";
  std::vector<std::string> examples;
  std::string line, current;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (line == ".nf") {
      in_block = true;
      current.clear();
    } else if (line == ".fi") {
      // Examples, not the SYNOPSIS (whose placeholders are in italics, \fI).
      if (current.rfind("apiVersion:", 0) == 0 && current.find("\\f") == std::string::npos) {
        examples.push_back(current);
      }
      in_block = false;
    } else if (in_block) {
      for (size_t p; (p = line.find("\\-")) != std::string::npos;) line.replace(p, 2, "-");
      current += line + "\n";
    }
  }
  ASSERT_GE(examples.size(), 2u);
  for (const std::string& example : examples) {
    absl::StatusOr<JobSpec> spec = ParseJobSpec(example, "/man/job.yaml");
    EXPECT_TRUE(spec.ok()) << spec.status() << "\n" << example;
  }
}

}  // namespace
}  // namespace dlp
