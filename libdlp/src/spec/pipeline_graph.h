// The graph of a pipeline's jobs: its order, its cycles, and which jobs each
// one reads outputs of (${jobs.NAME.outputDir}).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/pipeline.h"

namespace dlp::internal {

// The dependsOn entry that closes a cycle, and the cycle "a -> b -> a".
struct CycleEdge {
  size_t job = 0;         // index in spec.jobs
  size_t dependency = 0;  // index in that job's depends_on
  std::string cycle;
};

// PipelineOrder; on a cycle, InvalidArgument and `*cycle` set when given.
// Entries naming no sibling are left to the caller (skipped here).
absl::StatusOr<std::vector<size_t>> OrderPipelineJobs(const PipelineSpec& spec,
                                                      CycleEdge* cycle = nullptr);

// The NAMEs of every ${jobs.NAME.FIELD} in `text`, with problems (an unknown
// FIELD, an unclosed reference) appended to `problems`.
std::vector<std::string> JobOutputReferences(const std::string& text,
                                             std::vector<std::string>* problems);

// "spec.jobs.NAME.replicas.ROLE.command[i]" etc.: every place of a job's spec
// where ${jobs...} may appear, with its text.
struct SpecText {
  std::string path;  // below spec.jobs.NAME
  std::string text;
};
std::vector<SpecText> SubstitutableTexts(const JobSpec& spec);

}  // namespace dlp::internal
