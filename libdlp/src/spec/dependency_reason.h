// How the reason of a job cancelled for its dependencies (spec.dependsOn)
// begins: written by whoever decides (dlp/job_dependencies.h), read by a pipeline's
// status (pipeline_graph.h) to tell a skipped stage from a cancelled one.
#pragma once

namespace dlp::internal {

inline constexpr char kDependencyReasonPrefix[] = "dependency job ";

}  // namespace dlp::internal
