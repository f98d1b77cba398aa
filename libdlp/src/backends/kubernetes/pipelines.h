// Pipelines on Kubernetes, without a daemon or an in-cluster controller. The
// pipeline is a ConfigMap, dlp-pipeline-ID (labelled dlp.dev/pipeline-id=ID),
// that holds its spec and the job id given to each job at submit; a job's
// objects are created only once its dependencies are met, labelled
// dlp.dev/pipeline-id and dlp.dev/pipeline-job=NAME, by Step, which `dlp
// submit --wait` and `dlp pipeline resume` call in the foreground. Object
// names follow from the job ids, so a step repeated after a killed `dlp`
// finds what was already created and neither loses nor duplicates a job.
// Status, list and cancel read the ConfigMap, from any machine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/pipeline.h"
#include "nlohmann/json.hpp"

namespace dlp::internal::k8s {

class KubernetesBackend;

inline constexpr char kPipelineIdLabel[] = "dlp.dev/pipeline-id";
inline constexpr char kPipelineJobLabel[] = "dlp.dev/pipeline-job";

class KubernetesPipelines {
 public:
  explicit KubernetesPipelines(KubernetesBackend& backend) : backend_(backend) {}

  // Stores a spec ValidatePipelineSpec accepted and takes the first step (the
  // jobs without dependencies). ${jobs.NAME.outputDir} needs the context's
  // output-claim (InvalidArgument without it).
  absl::StatusOr<Pipeline> Submit(const PipelineSpec& spec);
  // Creates the jobs whose dependencies are now met, records as Cancelled
  // those whose dependencies can never be ("dependency job ID failed"), and
  // after a cancel cancels what is still running.
  absl::StatusOr<Pipeline> Step(std::string_view id);
  // The pipeline as it stands; changes nothing. NotFound for an unknown id.
  absl::StatusOr<Pipeline> Get(std::string_view id);
  absl::StatusOr<std::vector<Pipeline>> List();
  // Marks the pipeline cancelled and cancels its jobs, the last first; the
  // jobs not yet created never will be.
  absl::StatusOr<Pipeline> Cancel(std::string_view id);

 private:
  struct Record;
  absl::StatusOr<Record> Read(std::string_view id);
  absl::StatusOr<Record> FromConfigMap(const nlohmann::json& map);
  // Fills in the jobs' states; with `act`, moves the pipeline on (Step).
  absl::StatusOr<Pipeline> Advance(Record record, bool act);
  absl::Status Save(const Record& record);

  KubernetesBackend& backend_;
};

}  // namespace dlp::internal::k8s
