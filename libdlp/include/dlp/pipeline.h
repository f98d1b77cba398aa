// Pipelines (kind: Pipeline, dlp-pipeline(5)): several named jobs submitted at
// once, each waiting for the others it names in dependsOn, a DAG. A later job
// reads an earlier one's output folder as ${jobs.NAME.outputDir}.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dlp/job.h"

namespace dlp {

inline constexpr int kMaxPipelineJobs = 64;

struct PipelineJobSpec {
  std::string name;  // its name in the pipeline: "prep"
  // The job (spec.name is "PIPELINE-NAME"); depends_on names siblings.
  JobSpec spec;
};

struct PipelineSpec {
  std::string name;
  std::vector<PipelineJobSpec> jobs;  // in file order
};

// One job of a submitted pipeline as it stands.
struct PipelineJob {
  std::string name;  // in the pipeline
  std::string job;   // its job id
  JobState state = JobState::kQueued;
  std::string reason;
  std::vector<std::string> depends_on;  // the names of the jobs it waits for
};

struct Pipeline {
  std::string id;
  std::string name;
  // Queued until a job starts; Running until all ended; then Failed if one
  // failed, else Cancelled if one was cancelled (other than for its
  // dependencies: a job for `failed` after a success is skipped), else
  // Succeeded.
  JobState state = JobState::kQueued;
  std::optional<absl::Time> created;
  std::vector<PipelineJob> jobs;  // each after those it depends on
};

// Parses a kind: Pipeline document. Errors as ParseJobSpec's
// ("FILE:LINE:COLUMN: spec.jobs.train.replicas...: ..."), and a cycle as
// "FILE:LINE:COLUMN: spec.jobs.a.dependsOn[0]: a cycle: a -> b -> a" at the
// dependsOn entry that closes it.
absl::StatusOr<PipelineSpec> ParsePipelineSpec(std::string_view yaml, std::string_view filename);
// Reads `path` ("-": standard input) and parses it.
absl::StatusOr<PipelineSpec> LoadPipelineSpec(const std::string& path);

// The rules of dlp-pipeline(5) on a pipeline built in code or received over
// the API: each job valid (ValidateJobSpec), dependsOn naming siblings, no
// cycle, ${jobs.NAME.outputDir} naming a job it depends on. InvalidArgument.
absl::Status ValidatePipelineSpec(const PipelineSpec& spec);

// Indices of spec.jobs, each after those it depends on (file order among
// equals). InvalidArgument naming the cycle ("a -> b -> a") when there is one.
absl::StatusOr<std::vector<size_t>> PipelineOrder(const PipelineSpec& spec);

// Replaces ${jobs.NAME.outputDir} in the spec's commands and environment with
// output_dirs[NAME]; InvalidArgument for a NAME not in `output_dirs` or an
// unknown field.
absl::Status SubstituteJobOutputs(JobSpec& spec,
                                  const std::map<std::string, std::string>& output_dirs);

// The pipeline's state from its jobs' (see Pipeline::state).
JobState PipelineState(const std::vector<PipelineJob>& jobs);

// The `kind` of a spec document: "Job", "Pipeline", ...; InvalidArgument when
// it does not parse or has no kind.
absl::StatusOr<std::string> SpecKind(std::string_view yaml, std::string_view filename);

// JSON (docs/api.md): a PipelineSpec as POST /v1/pipelines takes it
// ({"name","jobs":[{"name","spec":JobSpec}]}), and a Pipeline as the API
// returns it ({"id","name","state","created","jobs":[{"name","job","state",
// "reason","dependsOn":[NAME...]}]}).
std::string PipelineSpecToJson(const PipelineSpec& spec);
absl::StatusOr<PipelineSpec> PipelineSpecFromJson(std::string_view json);
std::string PipelineToJson(const Pipeline& pipeline, int indent = -1);
absl::StatusOr<Pipeline> PipelineFromJson(std::string_view json);
std::string PipelinesToJson(const std::vector<Pipeline>& pipelines, int indent = -1);
absl::StatusOr<std::vector<Pipeline>> PipelinesFromJson(std::string_view json);
// `dlp pipeline status -o json`: exactly
// {"id","state","jobs":[{"name","job","state","dependsOn":[NAME...]}]}.
std::string PipelineStatusToJson(const Pipeline& pipeline, int indent = 2);

}  // namespace dlp
