// Pipelines on Slurm, without a daemon: the jobs go to sbatch in an order
// where each comes after those it depends on, its dependsOn as
// --dependency on their Slurm ids (Slurm enforces them) and its
// ${jobs.NAME.outputDir} as their output folders. The pipeline's id is its
// first job's Slurm id; a record WORKDIR/pipelines/ID.json (the Pipeline's
// JSON) names its jobs, so that status, list and cancel work from any later
// `dlp` run.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/backend.h"
#include "dlp/pipeline.h"

namespace dlp::internal {

// A job as sbatch accepted it, with its output folder on the shared filesystem.
struct SubmittedSlurmJob {
  Job job;
  std::string output_dir;
};
using SubmitSlurmJob = std::function<absl::StatusOr<SubmittedSlurmJob>(const JobSpec&)>;

class SlurmPipelines {
 public:
  // `jobs` gets and cancels the member jobs; `record_dir` holds the records.
  SlurmPipelines(Backend& jobs, std::string record_dir)
      : jobs_(jobs), record_dir_(std::move(record_dir)) {}

  // Submits a spec ValidatePipelineSpec accepted. When one job is refused,
  // those already submitted are cancelled and the error says so.
  absl::StatusOr<Pipeline> Submit(const PipelineSpec& spec, const SubmitSlurmJob& submit);
  // NotFound for an id with no record.
  absl::StatusOr<Pipeline> Get(std::string_view id);
  absl::StatusOr<std::vector<Pipeline>> List();
  // Cancels every job not yet ended, the last first.
  absl::StatusOr<Pipeline> Cancel(std::string_view id);

 private:
  std::string RecordPath(std::string_view id) const;
  absl::StatusOr<Pipeline> Refresh(Pipeline record);

  Backend& jobs_;
  std::string record_dir_;
};

}  // namespace dlp::internal
