// The JSON and YAML forms of the job model (docs/api.md): exact shapes,
// round trips, and errors that name the field.
#include "dlp/codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "absl/time/time.h"
#include "dlp/spec.h"
#include "job/job_group.h"
#include "spec/rules.h"

namespace dlp {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

JobSpec SampleSpec() {
  JobSpec spec;
  spec.name = "mnist";
  spec.labels = {{"team", "vision"}};
  spec.framework = Framework::kPyTorch;
  spec.replicas.push_back(
      {.role = "worker",
       .count = 4,
       .command = {"fmnist-train"},
       .env = {},
       .resources = {.cpu_millis = 1000, .memory_bytes = 2LL << 30, .gpu_millis = 0}});
  spec.workdir = "/abs/path";
  spec.restart_policy = {
      .policy = RestartPolicyKind::kOnFailure, .max_restarts = 3, .backoff_seconds = 5};
  spec.active_deadline_seconds = 3600;
  return spec;
}

absl::Time At(const char* rfc3339) {
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) << err;
  return t;
}

Job SampleJob() {
  Job job;
  job.id = "7";
  job.name = "mnist";
  job.state = JobState::kRunning;
  job.created = At("2026-11-30T12:00:00Z");
  job.started = At("2026-11-30T12:00:00.1Z");
  job.spec = SampleSpec();
  job.replicas.push_back({.name = "worker-0",
                          .role = "worker",
                          .index = 0,
                          .state = JobState::kRunning,
                          .exit_code = std::nullopt,
                          .signal = std::nullopt,
                          .host = "localhost",
                          .pid = 4250});
  return job;
}

TEST(Codec, JobSpecJsonIsExactlyTheDocumentedForm) {
  EXPECT_EQ(JobSpecToJson(SampleSpec()),
            R"({"name":"mnist","labels":{"team":"vision"},"framework":"pytorch","queue":"default",)"
            R"("priority":0,"replicas":[{"role":"worker","count":4,"command":["fmnist-train"],)"
            R"("env":{},"resources":{"cpu":"1","memory":"2Gi","gpu":0}}],"workdir":"/abs/path",)"
            R"("restartPolicy":{"policy":"OnFailure","maxRestarts":3,"backoffSeconds":5},)"
            R"("activeDeadlineSeconds":3600})");
}

TEST(Codec, JobJsonIsExactlyTheDocumentedForm) {
  json j = json::parse(JobToJson(SampleJob()));
  EXPECT_EQ(j["id"], "7");
  EXPECT_EQ(j["tenant"], "default");
  EXPECT_EQ(j["queue"], "default");
  EXPECT_EQ(j["state"], "Running");
  EXPECT_EQ(j["reason"], "");
  EXPECT_EQ(j["created"], "2026-11-30T12:00:00.000Z");
  EXPECT_EQ(j["started"], "2026-11-30T12:00:00.100Z");
  EXPECT_TRUE(j["finished"].is_null());
  EXPECT_TRUE(j["exitCode"].is_null());
  EXPECT_EQ(j["restartCount"], 0);
  EXPECT_EQ(j["spec"]["name"], "mnist");
  EXPECT_EQ(j["replicas"][0],
            json::parse(R"({"name":"worker-0","role":"worker","index":0,"state":"Running",)"
                        R"("exitCode":null,"signal":null,"host":"localhost","pid":4250})"));
  // Field order as documented; indentation on request.
  const std::string compact = JobToJson(SampleJob());
  EXPECT_EQ(compact.find("{\"id\":\"7\",\"name\":\"mnist\",\"tenant\""), 0u);
  EXPECT_THAT(JobToJson(SampleJob(), 2), HasSubstr("\n  \"name\": \"mnist\""));
}

TEST(Codec, EveryStateNameIsExact) {
  const std::pair<JobState, const char*> states[] = {{JobState::kQueued, "Queued"},
                                                     {JobState::kRunning, "Running"},
                                                     {JobState::kSucceeded, "Succeeded"},
                                                     {JobState::kFailed, "Failed"},
                                                     {JobState::kCancelled, "Cancelled"}};
  for (const auto& [state, name] : states) {
    Job job = SampleJob();
    job.state = state;
    EXPECT_EQ(json::parse(JobToJson(job))["state"], name);
    EXPECT_EQ(JobFromJson(JobToJson(job))->state, state);
  }
}

TEST(Codec, JobRoundTripsThroughJson) {
  Job job = SampleJob();
  job.state = JobState::kFailed;
  job.reason = "worker-1 on localhost exited with code 3";
  job.finished = At("2026-11-30T12:05:00.250Z");
  job.exit_code = 3;
  job.restart_count = 2;
  job.replicas[0].state = JobState::kFailed;
  job.replicas[0].exit_code = 137;
  job.replicas[0].signal = 9;
  const std::string text = JobToJson(job);
  absl::StatusOr<Job> back = JobFromJson(text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(JobToJson(*back), text);
  EXPECT_EQ(back->finished, job.finished);
  EXPECT_EQ(back->exit_code, 3);
  EXPECT_EQ(back->replicas[0].signal, 9);
  EXPECT_EQ(back->spec.replicas[0].resources.memory_bytes, 2LL << 30);
}

TEST(Codec, JobSpecRoundTripsThroughJson) {
  JobSpec spec = SampleSpec();
  spec.replicas.insert(
      spec.replicas.begin(),
      {.role = "ps",
       .count = 2,
       .command = {"a", "b c"},
       .env = {{"K", "v"}},
       .resources = {.cpu_millis = 500, .memory_bytes = 1000, .gpu_millis = 1000}});
  spec.image = "registry.example.com/ml/train:1.0";
  absl::StatusOr<JobSpec> back = JobSpecFromJson(JobSpecToJson(spec));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(JobSpecToJson(*back), JobSpecToJson(spec));
  EXPECT_EQ(back->replicas[0].resources.cpu_millis, 500);
  EXPECT_EQ(back->replicas[0].resources.memory_bytes, 1000);
  EXPECT_EQ(back->image, spec.image);
}

TEST(Codec, JobSpecFromJsonAcceptsNumbersAndDefaults) {
  absl::StatusOr<JobSpec> spec =
      JobSpecFromJson(R"({"name":"x","replicas":[{"role":"worker","command":["a"],)"
                      R"("resources":{"cpu":0.5,"memory":1024}}]})");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->queue, "default");
  EXPECT_EQ(spec->replicas[0].count, 1);
  EXPECT_EQ(spec->replicas[0].resources.cpu_millis, 500);
  EXPECT_EQ(spec->replicas[0].resources.memory_bytes, 1024);
  EXPECT_EQ(spec->restart_policy.policy, RestartPolicyKind::kNever);
}

// A misspelt field would otherwise be dropped: "memroy" would leave the
// replica without a memory limit. The submitted JSON is refused as YAML is.
TEST(Codec, JobSpecFromJsonRefusesUnknownFieldsAsYamlDoes) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"({"name":"x","replicas":[{"role":"worker","command":["a"],)"
       R"("resources":{"memroy":"1Gi"}}]})",
       "replicas[0].resources.memroy: unknown field; did you mean 'memory'?"},
      {R"({"name":"x","replicsa":[]})", "replicsa: unknown field; did you mean 'replicas'?"},
      {R"({"name":"x","replicas":[{"role":"worker","comand":["a"]}]})",
       "replicas[0].comand: unknown field; did you mean 'command'?"},
      {R"({"name":"x","restartPolicy":{"policy":"Never","retries":3}})",
       "restartPolicy.retries: unknown field; expected one of: policy, "},
      {R"({"name":"x","logs":{"maxbytes":65536}})",
       "logs.maxbytes: unknown field; did you mean 'maxBytes'?"},
      {R"({"name":"x","preemption":{"grace":5}})", "preemption.grace: unknown field"},
      {R"({"name":"x","dependsOn":[{"job":"1","when":"succeeded"}]})",
       "dependsOn[0].when: unknown field"},
      {R"({"name":"x","someFutureField":1})", "someFutureField: unknown field"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<JobSpec> spec = JobSpecFromJson(c.json);
    ASSERT_FALSE(spec.ok()) << c.json;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr(c.message)) << c.json;
  }
  // The YAML form words the same mistake the same way.
  absl::StatusOr<JobSpec> yaml = ParseJobSpec(R"(apiVersion: dlp/v1
kind: Job
metadata: {name: x}
spec:
  replicas:
    worker: {command: [a], resources: {memroy: 1Gi}}
)",
                                              "/w/job.yaml");
  ASSERT_FALSE(yaml.ok());
  EXPECT_THAT(yaml.status().message(),
              HasSubstr("spec.replicas.worker.resources.memroy: unknown field; did you mean "
                        "'memory'?"));
}

// A Job is what dlpd answers: a newer dlpd may add fields to its spec, which
// an older client reads past.
TEST(Codec, JobFromJsonReadsPastNewSpecFields) {
  absl::StatusOr<Job> job = JobFromJson(
      R"({"id":"7","spec":{"name":"x","someFutureField":1,"replicas":[{"role":"worker",)"
      R"("command":["a"],"resources":{"memory":1024,"newResource":2}}]}})");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->spec.replicas[0].resources.memory_bytes, 1024);
}

TEST(Codec, JobSpecFromJsonTakesPriorityClassNamesAsYamlDoes) {
  const std::string replicas = R"("replicas":[{"role":"worker","command":["a"]}])";
  absl::StatusOr<JobSpec> high = JobSpecFromJson(R"({"priority":"high",)" + replicas + "}");
  ASSERT_TRUE(high.ok()) << high.status();
  EXPECT_EQ(high->priority, 100);
  absl::StatusOr<JobSpec> number = JobSpecFromJson(R"({"priority":-7,)" + replicas + "}");
  ASSERT_TRUE(number.ok()) << number.status();
  EXPECT_EQ(number->priority, -7);
  absl::StatusOr<JobSpec> unknown = JobSpecFromJson(R"({"priority":"urgent",)" + replicas + "}");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown priority class \"urgent\""));
}

TEST(Codec, ListsAndEventsRoundTrip) {
  std::vector<Job> jobs = {SampleJob(), SampleJob()};
  jobs[1].id = "8";
  absl::StatusOr<std::vector<Job>> back = JobsFromJson(JobsToJson(jobs));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].id, "8");
  EXPECT_EQ(JobsToJson({}), R"({"jobs":[]})");

  std::vector<Event> events = {{At("2026-11-30T12:00:00.001Z"), "Submitted", "by alice"},
                               {At("2026-11-30T12:00:01.999Z"), "Started", ""}};
  const std::string text = EventsToJson(events);
  EXPECT_EQ(
      text,
      R"({"events":[{"time":"2026-11-30T12:00:00.001Z","type":"Submitted","message":"by alice"},)"
      R"({"time":"2026-11-30T12:00:01.999Z","type":"Started","message":""}]})");
  absl::StatusOr<std::vector<Event>> events_back = EventsFromJson(text);
  ASSERT_TRUE(events_back.ok()) << events_back.status();
  ASSERT_EQ(events_back->size(), 2u);
  EXPECT_EQ((*events_back)[1].time, events[1].time);
  EXPECT_EQ((*events_back)[0].message, "by alice");
}

TEST(Codec, ParsesTimesWithOffsetsAndMicroseconds) {
  absl::StatusOr<Job> job =
      JobFromJson(R"({"id":"1","created":"2026-11-30T13:00:00.123456+01:00"})");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(json::parse(JobToJson(*job))["created"], "2026-11-30T12:00:00.123Z");
}

TEST(Codec, ErrorsNameTheField) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {"{", "invalid JSON for a job"},
      {"[]", "job: expected an object, got array"},
      {R"({"state":"Done"})", "state: unknown state \"Done\""},
      {R"({"created":"yesterday"})", "created: \"yesterday\" is not an RFC 3339 time"},
      {R"({"exitCode":"1"})", "exitCode: expected an integer, got string"},
      {R"({"replicas":[{"index":"0"}]})", "replicas[0].index: expected an integer, got string"},
      {R"({"spec":{"replicas":[{"count":"4"}]}})",
       "spec.replicas[0].count: expected an integer, got string"},
      {R"({"spec":{"replicas":[{"resources":{"memory":"4GB"}}]}})",
       "spec.replicas[0].resources.memory: \"4GB\" is not a memory quantity"},
      {R"({"spec":{"framework":"caffe"}})", "spec.framework: unknown framework \"caffe\""},
      {R"({"spec":{"restartPolicy":{"policy":"Always"}}})",
       "spec.restartPolicy.policy: unknown restart policy \"Always\""},
      {R"({"spec":{"labels":{"a":1}}})", "spec.labels.a: expected a string, got number"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Job> job = JobFromJson(c.json);
    ASSERT_FALSE(job.ok()) << c.json;
    EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(job.status().message(), HasSubstr(c.message)) << c.json;
  }
  EXPECT_THAT(JobsFromJson(R"({"jobs":[{"id":7}]})").status().message(),
              HasSubstr("jobs[0].id: expected a string, got number"));
  EXPECT_THAT(EventsFromJson(R"({"events":[{"type":"x"}]})").status().message(),
              HasSubstr("events[0].time: required"));
}

TEST(Codec, JobYamlHoldsTheSameDocument) {
  Job job = SampleJob();
  job.id = "007";  // must stay a string
  const std::string text = JobToYaml(job);
  YAML::Node y = YAML::Load(text);
  EXPECT_EQ(y["id"].Tag(), "!") << text;  // quoted
  EXPECT_EQ(y["id"].as<std::string>(), "007");
  EXPECT_EQ(y["state"].as<std::string>(), "Running");
  EXPECT_EQ(y["created"].as<std::string>(), "2026-11-30T12:00:00.000Z");
  EXPECT_TRUE(y["finished"].IsNull());
  EXPECT_EQ(y["spec"]["replicas"][0]["command"][0].as<std::string>(), "fmnist-train");
  EXPECT_EQ(y["replicas"][0]["pid"].as<int>(), 4250);
  YAML::Node list = YAML::Load(JobsToYaml({job, job}));
  EXPECT_EQ(list["jobs"].size(), 2u);
}

TEST(Codec, JobSpecYamlIsAcceptedBackByTheParser) {
  JobSpec spec = SampleSpec();
  spec.replicas.insert(spec.replicas.begin(),
                       {.role = "chief",
                        .count = 1,
                        .command = {"python3", "-c", "print(1): x"},
                        .env = {{"A", "true"}, {"B", "007"}, {"C", ""}},
                        .resources = {.cpu_millis = 250, .memory_bytes = 0, .gpu_millis = 0}});
  spec.labels["example.com/tier"] = "1";
  const std::string text = JobSpecToYaml(spec);
  EXPECT_EQ(text.find("apiVersion: dlp/v1\nkind: Job\nmetadata:\n  name: mnist\n"), 0u) << text;
  EXPECT_THAT(text, HasSubstr("command: [fmnist-train]"));
  absl::StatusOr<JobSpec> back = ParseJobSpec(text, "/elsewhere/job.yaml");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << text;
  EXPECT_EQ(JobSpecToJson(*back), JobSpecToJson(spec)) << text;
}

TEST(SpecCodec, LogLimitGoesThroughEveryForm) {
  absl::StatusOr<JobSpec> spec = ParseJobSpec(R"(apiVersion: dlp/v1
kind: Job
metadata: {name: capped}
spec:
  replicas:
    worker: {command: [echo, hi]}
  logs: {maxBytes: 100Mi}
)",
                                              "/w/job.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->logs.max_bytes, 100 << 20);
  absl::StatusOr<JobSpec> from_json = JobSpecFromJson(JobSpecToJson(*spec));
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  EXPECT_EQ(from_json->logs.max_bytes, 100 << 20);
  absl::StatusOr<JobSpec> from_yaml = ParseJobSpec(JobSpecToYaml(*spec), "/w/job.yaml");
  ASSERT_TRUE(from_yaml.ok()) << from_yaml.status();
  EXPECT_EQ(from_yaml->logs.max_bytes, 100 << 20);
  // dlp-run gets it in the group file.
  EXPECT_EQ(internal::JobGroup(*spec).log_max_bytes, 100 << 20);
  // Unset, it is not written at all: specs stored before it read the same.
  spec->logs.max_bytes = 0;
  EXPECT_EQ(JobSpecToJson(*spec).find("logs"), std::string::npos);
  // But dlp-run still rotates: logs are never unlimited (dlp-job(5)).
  EXPECT_EQ(internal::JobGroup(*spec).log_max_bytes, 64 << 20);
  EXPECT_EQ(internal::kDefaultLogMaxBytes, 64 << 20);
}


TEST(SpecCodec, PreemptionFieldsGoThroughEveryForm) {
  absl::StatusOr<JobSpec> spec = ParseJobSpec(R"(apiVersion: dlp/v1
kind: Job
metadata: {name: pinned}
spec:
  replicas:
    worker: {command: [echo, hi]}
  preemptible: false
  preemption: {gracePeriodSeconds: 120}
)",
                                              "/w/job.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->preemptible);
  EXPECT_EQ(spec->preemption.grace_period_seconds, 120);
  absl::StatusOr<JobSpec> from_json = JobSpecFromJson(JobSpecToJson(*spec));
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  EXPECT_EQ(*from_json, *spec);
  absl::StatusOr<JobSpec> from_yaml = ParseJobSpec(JobSpecToYaml(*spec), "/w/job.yaml");
  ASSERT_TRUE(from_yaml.ok()) << from_yaml.status();
  EXPECT_EQ(*from_yaml, *spec);
  // The defaults (preemptible, 30 s) are not written: specs stored before read the same.
  JobSpec defaults = *spec;
  defaults.preemptible = true;
  defaults.preemption = PreemptionSpec();
  EXPECT_EQ(defaults.preemption.grace_period_seconds, 30);
  EXPECT_EQ(JobSpecToJson(defaults).find("preempt"), std::string::npos);
  EXPECT_EQ(JobSpecToYaml(defaults).find("preempt"), std::string::npos);
  // Out of range, or not a boolean: refused with the field.
  spec->preemption.grace_period_seconds = 3601;
  EXPECT_THAT(std::string(ValidateJobSpec(*spec).message()),
              ::testing::HasSubstr("spec.preemption.gracePeriodSeconds: must be between 0 and "
                                   "3600 seconds, got 3601"));
  EXPECT_THAT(std::string(JobSpecFromJson(R"({"preemptible":"no"})").status().message()),
              ::testing::HasSubstr("preemptible"));
  absl::StatusOr<JobSpec> bad_yaml = ParseJobSpec(R"(apiVersion: dlp/v1
kind: Job
metadata: {name: pinned}
spec:
  replicas:
    worker: {command: [echo, hi]}
  preemptible: maybe
  preemption: {gracePeriodSeconds: -1}
)",
                                                  "/w/job.yaml");
  ASSERT_FALSE(bad_yaml.ok());
  EXPECT_THAT(std::string(bad_yaml.status().message()),
              ::testing::HasSubstr("spec.preemptible: expected true or false"));
  EXPECT_THAT(std::string(bad_yaml.status().message()),
              ::testing::HasSubstr("spec.preemption.gracePeriodSeconds: must be between 0 and "
                                   "3600 seconds, got -1"));
}

TEST(Codec, QueuedJobHasItsPlaceAndEveryJobItsPreemptions) {
  Job job = SampleJob();
  job.preemptions = 2;
  json running = json::parse(JobToJson(job));
  EXPECT_EQ(running["preemptions"], 2);
  EXPECT_FALSE(running.contains("position"));
  EXPECT_FALSE(running.contains("estimatedStart"));
  job.state = JobState::kQueued;
  json unknown = json::parse(JobToJson(job));
  EXPECT_TRUE(unknown["position"].is_null());
  EXPECT_TRUE(unknown["estimatedStart"].is_null());
  job.position = 3;
  job.estimated_start = absl::FromUnixSeconds(1796126400);
  json queued = json::parse(JobToJson(job));
  EXPECT_EQ(queued["position"], 3);
  EXPECT_EQ(queued["estimatedStart"], "2026-12-01T12:00:00.000Z");
  absl::StatusOr<Job> back = JobFromJson(JobToJson(job));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->preemptions, 2);
  EXPECT_EQ(back->position, 3);
  EXPECT_EQ(back->estimated_start, job.estimated_start);

  JobExplanation why{"7", JobState::kQueued, "waiting behind job 5 in queue default",
                     2,   std::nullopt,      {"queue default: 2nd", "job 5 holds 2 CPUs"}};
  absl::StatusOr<JobExplanation> explained = ExplanationFromJson(ExplanationToJson(why));
  ASSERT_TRUE(explained.ok()) << explained.status();
  EXPECT_EQ(explained->reason, why.reason);
  EXPECT_EQ(explained->position, 2);
  EXPECT_FALSE(explained->estimated_start.has_value());
  EXPECT_EQ(explained->trace, why.trace);
}

}  // namespace
}  // namespace dlp
