// Invalid job specs: each must be rejected with InvalidArgument and a message
// that names the position, the field path and what was expected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dlp/spec.h"
#include "support/temp_dir.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Lines 1-9; cases append lines under `spec:` (line 10 onwards) or replace it all.
constexpr char kHead[] = R"(apiVersion: dlp/v1
kind: Job
metadata:
  name: bad
spec:
  replicas:
    worker:
      count: 2
      command: [python3, train.py]
)";

struct Case {
  const char* title;
  std::string yaml;
  std::vector<std::string> overrides;
  std::vector<std::string> expected;     // substrings of the message, all required
  std::vector<std::string> absent = {};  // substrings it must not contain
};

std::string Head(const std::string& more) { return kHead + more; }

std::vector<Case> Cases() {
  return {
      // --- YAML syntax ------------------------------------------------------
      {"unclosed flow list",
       Head("  queue: [a, b\n"),
       {},
       {"job.yaml:11:1: YAML syntax error: end of sequence flow not found", "not closed with ']'"}},
      {"unclosed flow map",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: x\n",
       {},
       {"job.yaml:4:1: YAML syntax error: end of map flow not found"}},
      {"bad indentation",
       "apiVersion: dlp/v1\nkind: Job\n  metadata: x\n",
       {},
       {"job.yaml:3:11: YAML syntax error: illegal map value", "indentation"}},
      {"tab indentation",
       "apiVersion: dlp/v1\nkind: Job\nspec:\n\treplicas: {}\n",
       {},
       {"job.yaml:4:10: YAML syntax error: illegal map value",
        "line 4 is indented with a tab, and YAML indents with spaces only"}},
      {"undefined alias",
       Head("  queue: *nowhere\n"),
       {},
       {"job.yaml:10:10: YAML syntax error: the referenced anchor is not defined"}},
      {"empty document", "", {}, {"job.yaml: the document is empty", "apiVersion, kind"}},
      {"comment only", "# nothing\n", {}, {"job.yaml: the document is empty"}},
      {"log limit below one line",
       Head("  logs: {maxBytes: 1000}\n"),
       {},
       {"job.yaml:10:",
        "spec.logs.maxBytes: must be 0 (the default, 64Mi) or between 64Ki and 1Ti bytes, got 1000"}},
      {"log limit not a quantity",
       Head("  logs: {maxBytes: lots}\n"),
       {},
       {"job.yaml:10:", "spec.logs.maxBytes:"}},
      {"two documents", Head("---\nkind: Job\n"), {}, {"job.yaml:11:1: a spec file holds one job"}},
      {"top level is a list",
       "- apiVersion: dlp/v1\n",
       {},
       {"job.yaml:1:1: expected a job spec (a map with apiVersion, kind, metadata and spec), got "
        "a list"}},
      // --- unknown fields at every level, with suggestions -------------------
      {"top-level typo",
       Head("spek: {}\n"),
       {},
       {"job.yaml:10:1: spek: unknown field; did you mean 'spec'?"}},
      {"metadata typo",
       Head("").replace(Head("").find("  name: bad"), 11, "  nmae: bad"),
       {},
       {"job.yaml:4:3: metadata.nmae: unknown field; did you mean 'name'?"}},
      {"spec typo replica",
       Head("  replica: {}\n"),
       {},
       {"job.yaml:10:3: spec.replica: unknown field; did you mean 'replicas'?"}},
      {"spec snake_case",
       Head("  restart_policy: {policy: Never}\n"),
       {},
       {"job.yaml:10:3: spec.restart_policy: unknown field; did you mean 'restartPolicy'?"}},
      {"spec field no suggestion",
       Head("  colour: blue\n"),
       {},
       // The schema's fields, whichever they are (a new one needs no edit here).
       {"job.yaml:10:3: spec.colour: unknown field; expected one of: framework, queue, "}},
      {"replica typo",
       Head("      cmd: [x]\n"),
       {},
       {"job.yaml:10:7: spec.replicas.worker.cmd: unknown field; did you mean 'command'?"}},
      {"resources typo",
       Head("      resources: {cpus: 2}\n"),
       {},
       {"job.yaml:10:19: spec.replicas.worker.resources.cpus: unknown field; did you mean "
        "'cpu'?"}},
      {"resources prefix",
       Head("      resources: {mem: 1Gi}\n"),
       {},
       {"spec.replicas.worker.resources.mem: unknown field; did you mean 'memory'?"}},
      {"restartPolicy typo",
       Head("  restartPolicy: {policy: OnFailure, maxRetries: 3}\n"),
       {},
       {"job.yaml:10:38: spec.restartPolicy.maxRetries: unknown field; did you mean "
        "'maxRestarts'?"}},
      // --- roles ---------------------------------------------------------------
      {"unknown role close",
       Head("    workers: {command: [x]}\n"),
       {},
       {"job.yaml:10:5: spec.replicas.workers: unknown role; did you mean 'worker'? (roles: "
        "chief, ps, worker, evaluator)"}},
      {"unknown role far",
       Head("    master: {command: [x]}\n"),
       {},
       {"spec.replicas.master: unknown role; expected one of: chief, ps, worker, evaluator"}},
      {"replicas is a list",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: a}\n"
       "spec:\n  replicas: [worker]\n",
       {},
       {"job.yaml:5:13: spec.replicas: expected a map of roles (chief, ps, worker, evaluator), "
        "got a list"}},
      {"replicas empty",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: a}\n"
       "spec:\n  replicas: {}\n",
       {},
       {"job.yaml:5:13: spec.replicas: needs at least one role"}},
      {"replicas missing",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: a}\n"
       "spec:\n  queue: q\n",
       {},
       {"job.yaml:5:3: spec.replicas: required; e.g. replicas: {worker: {count: 2, command:"}},
      {"two chiefs",
       Head("    chief: {count: 2, command: [x]}\n"),
       {},
       {"job.yaml:10:20: spec.replicas.chief.count: a job has exactly one chief, got 2"}},
      // --- counts and types ------------------------------------------------------
      {"count zero",
       Head("").replace(Head("").find("count: 2"), 8, "count: 0"),
       {},
       {"job.yaml:8:14: spec.replicas.worker.count: must be between 1 and 1024, got 0"}},
      {"count negative",
       Head("").replace(Head("").find("count: 2"), 8, "count: -3"),
       {},
       {"spec.replicas.worker.count: must be between 1 and 1024, got -3"}},
      {"count text",
       Head("").replace(Head("").find("count: 2"), 8, "count: four"),
       {},
       {"job.yaml:8:14: spec.replicas.worker.count: expected an integer, got \"four\""}},
      {"count float",
       Head("").replace(Head("").find("count: 2"), 8, "count: 2.5"),
       {},
       {"spec.replicas.worker.count: expected an integer, got \"2.5\""}},
      {"count huge",
       Head("").replace(Head("").find("count: 2"), 8, "count: 99999999999"),
       {},
       {"spec.replicas.worker.count: integer 99999999999 is out of range"}},
      {"replica is a string",
       Head("    ps: python3 ps.py\n"),
       {},
       // The list is the schema's fields, whichever they are.
       {"job.yaml:10:9: spec.replicas.ps: expected a map with count, ", "got \"python3 ps.py\""}},
      // --- command ---------------------------------------------------------------
      {"command missing",
       Head("    ps: {count: 1}\n"),
       {},
       {"job.yaml:10:9: spec.replicas.ps.command: required; e.g. command: [python3, train.py]"}},
      {"command empty list",
       Head("    ps: {command: []}\n"),
       {},
       {"job.yaml:10:19: spec.replicas.ps.command: must name a program to run"}},
      {"command empty program",
       Head("    ps: {command: [\"\", x]}\n"),
       {},
       {"spec.replicas.ps.command: must name a program to run"}},
      {"command is a string",
       Head("    ps: {command: python3 ps.py}\n"),
       {},
       {"job.yaml:10:19: spec.replicas.ps.command: expected a list of strings (e.g. [python3, "
        "train.py]), got \"python3 ps.py\""}},
      {"command element is a map",
       Head("    ps: {command: [a, {b: c}]}\n"),
       {},
       {"job.yaml:10:23: spec.replicas.ps.command[1]: expected a string, got a map"}},
      // --- resources ---------------------------------------------------------------
      {"memory 4GB",
       Head("      resources: {memory: 4GB}\n"),
       {},
       {"job.yaml:10:27: spec.replicas.worker.resources.memory: \"4GB\" is not a memory quantity; "
        "expected e.g. 512Mi, 4Gi (binary) or 4G; did you mean 4G (10^9 bytes) or 4Gi (2^30)?"}},
      {"memory lowercase",
       Head("      resources: {memory: 2gi}\n"),
       {},
       {"spec.replicas.worker.resources.memory: \"2gi\" is not a memory quantity",
        "did you mean "
        "2Gi?"}},
      {"cpu abc",
       Head("      resources: {cpu: abc}\n"),
       {},
       {"job.yaml:10:24: spec.replicas.worker.resources.cpu: \"abc\" is not a CPU quantity; "
        "expected e.g. 2, 0.5 or 500m"}},
      {"cpu zero",
       Head("      resources: {cpu: 0}\n"),
       {},
       {"spec.replicas.worker.resources.cpu: must be more than 0 CPUs, got 0m"}},
      {"cpu too fine",
       Head("      resources: {cpu: 0.0005}\n"),
       {},
       {"\"0.0005\" is not a CPU quantity (finer than 1m, a thousandth of a CPU)"}},
      {"gpu negative",
       Head("      resources: {gpu: -1}\n"),
       {},
       {"job.yaml:10:24: spec.replicas.worker.resources.gpu: must be between 0 and 64 GPUs per "
        "replica, got -1"}},
      {"resources is a list",
       Head("      resources: [cpu]\n"),
       {},
       {"spec.replicas.worker.resources: expected a map with cpu, ", ", got a list"}},
      // --- env and labels ------------------------------------------------------------
      {"env bad name",
       Head("      env: {1BAD: x}\n"),
       {},
       {"job.yaml:10:13: spec.replicas.worker.env.1BAD: \"1BAD\" is not a valid environment "
        "variable name"}},
      {"env value map",
       Head("      env: {A: {b: c}}\n"),
       {},
       {"job.yaml:10:16: spec.replicas.worker.env.A: expected a string, got a map"}},
      {"shared env not a map",
       Head("  env: [A=b]\n"),
       {},
       {"job.yaml:10:8: spec.env: expected a map of names to strings, got a list"}},
      {"label key",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: a, labels: {\"bad key\": x}}\n"
       "spec: {replicas: {worker: {command: [x]}}}\n",
       {},
       {"job.yaml:3:30: metadata.labels.bad key: \"bad key\" is not a valid label key"}},
      {"label prefix",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: a, labels: {Ex_a/k: x}}\n"
       "spec: {replicas: {worker: {command: [x]}}}\n",
       {},
       {"metadata.labels.Ex_a/k: \"Ex_a/k\" is not a valid label key; its prefix \"Ex_a\" must "
        "be a DNS subdomain"}},
      {"label value",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: a, labels: {team: -x-}}\n"
       "spec: {replicas: {worker: {command: [x]}}}\n",
       {},
       {"job.yaml:3:36: metadata.labels.team: \"-x-\" is not a valid label value"}},
      // --- metadata, apiVersion, kind --------------------------------------------------
      {"missing name",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {labels: {a: b}}\n"
       "spec: {replicas: {worker: {command: [x]}}}\n",
       {},
       {"job.yaml:3:11: metadata.name: required; a job needs a name (or pass --name)"}},
      {"missing metadata",
       "apiVersion: dlp/v1\nkind: Job\n"
       "spec: {replicas: {worker: {command: [x]}}}\n",
       {},
       {"job.yaml:1:1: metadata: metadata.name is required"}},
      {"typo is not also reported as missing",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: a}\nspec:\n  replica: {}\n",
       {},
       {"job.yaml:5:3: spec.replica: unknown field; did you mean 'replicas'?"},
       {"spec.replicas: required"}},
      {"mismatched brackets",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: a]\n",
       {},
       {"YAML syntax error: illegal flow end (a ']' or '}' that closes nothing"}},
      {"bad name",
       Head("").replace(Head("").find("name: bad"), 9, "name: My_Job"),
       {},
       {"job.yaml:4:9: metadata.name: \"My_Job\" is not a valid job name; expected lowercase "
        "letters, digits and '-'"}},
      {"name too long",
       Head("").replace(Head("").find("name: bad"), 9, "name: " + std::string(64, 'a')),
       {},
       {"metadata.name: \"aaaa", "at most 63 characters"}},
      {"bad apiVersion",
       Head("").replace(0, 18, "apiVersion: v1"),
       {},
       {"job.yaml:1:13: apiVersion: \"v1\" is not supported; expected dlp/v1"}},
      {"missing apiVersion",
       Head("").substr(19),
       {},
       {"job.yaml:1:1: apiVersion: required; expected apiVersion: dlp/v1"}},
      {"bad kind",
       Head("").replace(19, 9, "kind: Deployment"),
       {},
       {"job.yaml:2:7: kind: \"Deployment\" is not supported; expected Job"}},
      {"metadata is a string",
       Head("").replace(Head("").find("metadata:\n  name: bad"), 21, "metadata: bad"),
       {},
       {"job.yaml:3:11: metadata: expected a map, got \"bad\""}},
      {"missing spec",
       "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: a}\n",
       {},
       {"job.yaml:1:1: spec: required"}},
      // --- framework, queue, priority, workdir ---------------------------------------------
      {"framework typo",
       Head("  framework: pytroch\n"),
       {},
       {"job.yaml:10:14: spec.framework: unknown framework \"pytroch\"; did you mean 'pytorch'? "
        "(expected one of: pytorch, tensorflow, horovod, jax, none)"}},
      {"framework unknown",
       Head("  framework: caffe\n"),
       {},
       {"spec.framework: unknown framework \"caffe\" (expected one of: pytorch"}},
      {"queue bad",
       Head("  queue: Big Queue\n"),
       {},
       {"job.yaml:10:10: spec.queue: \"Big Queue\" is not a valid queue name"}},
      {"priority class typo",
       Head("  priority: hihg\n"),
       {},
       {"job.yaml:10:13: spec.priority: unknown priority class \"hihg\"; did you mean 'high'? "
        "(expected one of: low, normal, high, critical); or an integer"}},
      {"priority neither class nor integer",
       Head("  priority: 1.5\n"),
       {},
       {"job.yaml:10:13: spec.priority: expected an integer, got \"1.5\""}},
      {"priority range",
       Head("  priority: 2000000\n"),
       {},
       {"spec.priority: must be between -1000000 and 1000000, got 2000000"}},
      {"workdir empty",
       Head("  workdir: \"\"\n"),
       {},
       {"job.yaml:10:12: spec.workdir: must not be empty"}},
      {"workdir list",
       Head("  workdir: [a]\n"),
       {},
       {"job.yaml:10:12: spec.workdir: expected a string, got a list"}},
      {"image empty",
       Head("  image: \"\"\n"),
       {},
       {"job.yaml:10:10: spec.image: must not be empty"}},
      {"image with a space",
       Head("  image: \"my image\"\n"),
       {},
       {"job.yaml:10:10: spec.image: must be an image reference"}},
      {"image too long",
       Head("  image: " + std::string(501, 'a') + "\n"),
       {},
       {"job.yaml:10:10: spec.image: an image reference of 501 bytes; at most 500"}},
      // --- restart policy and deadline ---------------------------------------------------------
      {"bad restart policy",
       Head("  restartPolicy: {policy: Always}\n"),
       {},
       {"job.yaml:10:27: spec.restartPolicy.policy: unknown restart policy \"Always\" (expected "
        "one of: Never, OnFailure, ExitCode)"}},
      {"restart policy case",
       Head("  restartPolicy: {policy: onfailure}\n"),
       {},
       {"unknown restart policy \"onfailure\"; did you mean 'OnFailure'?"}},
      {"maxRestarts zero with OnFailure",
       Head("  restartPolicy: {policy: OnFailure, maxRestarts: 0}\n"),
       {},
       {"job.yaml:10:51: spec.restartPolicy.maxRestarts: must be between 1 and 100 with policy "
        "OnFailure, got 0"}},
      {"maxRestarts unbounded",
       Head("  restartPolicy: {policy: ExitCode, maxRestarts: 1000}\n"),
       {},
       {"must be between 1 and 100 with policy ExitCode, got 1000"}},
      {"maxRestarts with Never",
       Head("  restartPolicy: {maxRestarts: 2}\n"),
       {},
       {"spec.restartPolicy.maxRestarts: policy Never never restarts"}},
      {"negative backoff",
       Head("  restartPolicy: {policy: OnFailure, backoffSeconds: -5}\n"),
       {},
       {"spec.restartPolicy.backoffSeconds: must be between 0 and 3600 seconds, got -5"}},
      {"restartPolicy string",
       Head("  restartPolicy: OnFailure\n"),
       {},
       {"job.yaml:10:18: spec.restartPolicy: expected a map with policy, ",
        "got \"OnFailure\""}},
      {"negative deadline",
       Head("  activeDeadlineSeconds: -1\n"),
       {},
       {"job.yaml:10:26: spec.activeDeadlineSeconds: must be 0 (no deadline) or a positive "
        "number of seconds, got -1"}},
      // --- duplicates
      // -----------------------------------------------------------------------------
      {"duplicate spec key",
       Head("  replicas: {}\n"),
       {},
       {"job.yaml:10:3: spec.replicas: duplicate key; first given on line 6"}},
      {"duplicate env key",
       Head("      env: {A: x, A: y}\n"),
       {},
       {"job.yaml:10:19: spec.replicas.worker.env.A: duplicate key; first given on line 10"}},
      // --- several problems at once, one per line ---------------------------------------------
      {"several problems",
       Head("  queue: Q\n  priority: x\n"),
       {},
       {"job.yaml:10:10: spec.queue:", "\njob.yaml:11:13: spec.priority:"}},
      // --- --set overrides
      // ------------------------------------------------------------------------
      {"set without =",
       kHead,
       {"spec.replicas.worker.count"},
       {"--set spec.replicas.worker.count: expected PATH=VALUE, e.g. --set "
        "spec.replicas.worker.count=8"}},
      {"set empty segment",
       kHead,
       {"spec..queue=a"},
       {"--set spec..queue=a: \"spec..queue\" is not a field path"}},
      {"set through a scalar",
       kHead,
       {"spec.replicas.worker.count.x=1"},
       {"--set spec.replicas.worker.count.x=1: spec.replicas.worker.count is \"2\", not a map"}},
      {"set bad index",
       kHead,
       {"spec.replicas.worker.command.7=x"},
       {"--set spec.replicas.worker.command.7=x: spec.replicas.worker.command is a list of 2; "
        "\"7\" is not an index in it"}},
      {"set unknown field",
       kHead,
       {"spec.replica.worker.count=8"},
       {"job.yaml: spec.replica: unknown field; did you mean 'replicas'? (from --set "
        "spec.replica.worker.count=8)"}},
      {"set bad value",
       kHead,
       {"spec.replicas.worker.count=0"},
       {"job.yaml: spec.replicas.worker.count: must be between 1 and 1024, got 0",
        "(from --set spec.replicas.worker.count=0)"}},
      {"set unknown role",
       kHead,
       {"spec.replicas.wrker.count=2"},
       {"spec.replicas.wrker: unknown role; did you mean 'worker'?",
        "(from --set spec.replicas.wrker.count=2)"}},
      {"set value not YAML",
       kHead,
       {"spec.queue=[a"},
       {"--set spec.queue=[a: the value is not valid YAML"}},
      {"set memory",
       kHead,
       {"spec.replicas.worker.resources.memory=4GB"},
       {"spec.replicas.worker.resources.memory: \"4GB\" is not a memory quantity",
        "(from --set spec.replicas.worker.resources.memory=4GB)"}},
  };
}

TEST(SpecInvalid, EachCaseNamesPositionFieldAndExpectation) {
  std::vector<Case> cases = Cases();
  EXPECT_GE(cases.size(), 40u);
  for (const Case& c : cases) {
    SpecOptions options;
    options.overrides = c.overrides;
    absl::StatusOr<JobSpec> spec = ParseJobSpec(c.yaml, "job.yaml", options);
    ASSERT_FALSE(spec.ok()) << c.title << ": accepted\n" << c.yaml;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument) << c.title;
    for (const std::string& want : c.expected) {
      EXPECT_THAT(std::string(spec.status().message()), HasSubstr(want))
          << "case: " << c.title << "\nyaml:\n"
          << c.yaml;
    }
    for (const std::string& unwanted : c.absent) {
      EXPECT_THAT(std::string(spec.status().message()), Not(HasSubstr(unwanted)))
          << "case: " << c.title;
    }
  }
}

TEST(SpecInvalid, BadNameOptionIsNamed) {
  absl::StatusOr<JobSpec> spec = ParseJobSpec(kHead, "job.yaml", {.name = "Not_A_Name"});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("--name: \"Not_A_Name\" is not a valid job name"));
}

TEST(SpecInvalid, StdinIsNamedInMessages) {
  absl::StatusOr<JobSpec> spec = ParseJobSpec(Head("  queue: Q\n"), "-");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("<stdin>:10:10: spec.queue:"));
}

TEST(SpecInvalid, ManyProblemsAreCapped) {
  std::string yaml = Head("      env:\n");
  for (int i = 0; i < 30; ++i) yaml += "        " + std::to_string(i) + "X: y\n";
  absl::StatusOr<JobSpec> spec = ParseJobSpec(yaml, "job.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("... and 10 more problems"));
}

TEST(SpecInvalid, UnreadableFiles) {
  testing::TempDir dir;
  absl::StatusOr<JobSpec> missing = LoadJobSpec(dir.Join("nope.yaml"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("nope.yaml: cannot read: No such file"));
  absl::StatusOr<JobSpec> folder = LoadJobSpec(dir.path());
  ASSERT_FALSE(folder.ok());
  EXPECT_THAT(folder.status().message(), HasSubstr("is a folder; expected a job spec file"));
  const std::string path = dir.WriteFile("bad.yaml", Head("  framework: pytroch\n"));
  absl::StatusOr<JobSpec> bad = LoadJobSpec(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr(path + ":10:14: spec.framework:"));
}

TEST(SpecInvalid, ValidateRejectsBadSpecsBuiltInCode) {
  JobSpec spec;
  spec.name = "ok";
  spec.replicas.push_back({.role = "worker", .count = 1, .command = {"x"}});
  spec.replicas.push_back({.role = "chief", .count = 1, .command = {"x"}});
  spec.workdir = "relative";
  spec.restart_policy.policy = RestartPolicyKind::kOnFailure;  // max_restarts 0
  spec.replicas[0].resources.cpu_millis = 0;
  absl::Status status = ValidateJobSpec(spec);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  const std::string message(status.message());
  EXPECT_THAT(message, HasSubstr("spec.replicas: role chief is out of order or repeated"));
  EXPECT_THAT(message, HasSubstr("spec.workdir: \"relative\" must be an absolute path"));
  EXPECT_THAT(message, HasSubstr("spec.restartPolicy.maxRestarts: must be between 1 and 100"));
  EXPECT_THAT(message, HasSubstr("spec.replicas.worker.resources.cpu: must be more than 0"));

  JobSpec empty;
  status = ValidateJobSpec(empty);
  EXPECT_THAT(status.message(), HasSubstr("metadata.name: required"));
  EXPECT_THAT(status.message(), HasSubstr("spec.replicas: needs at least one role"));

  JobSpec odd;
  odd.name = "odd";
  odd.replicas.push_back({.role = "master", .count = 1, .command = {"x"}});
  EXPECT_THAT(ValidateJobSpec(odd).message(), HasSubstr("spec.replicas.master: unknown role"));
}

}  // namespace
}  // namespace dlp
