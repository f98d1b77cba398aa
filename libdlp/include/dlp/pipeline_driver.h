// Pipelines that move on only while a `dlp` process steps them: on
// Kubernetes neither a daemon nor the scheduler orders a pipeline's jobs, so
// the process driving it (`dlp submit --wait`, `dlp pipeline resume`) creates
// each job once its dependencies are met (docs/kubernetes.md, Pipelines).
// dlpd and Slurm move pipelines on themselves; there a step only reads.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "dlp/client.h"
#include "dlp/pipeline.h"

namespace dlp {

// True where the client's backend moves pipelines on only in the foreground.
bool ForegroundPipelines(const Client& client);

// One step: creates the jobs whose dependencies are now met, records as
// Cancelled those whose dependencies can never be, and after a cancel
// cancels what still runs; returns the pipeline as it then stands. Safe to
// repeat after a killed step and from several processes at once. Where the
// backend moves pipelines on itself: Client::GetPipeline.
absl::StatusOr<Pipeline> StepPipeline(Client& client, std::string_view id);

}  // namespace dlp
