// Whether a run may go on from a checkpoint it found, and the note that says
// where it goes on from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "checkpoint/checkpoint.h"
#include "dlp/status.h"

namespace dlp::fmnist {

// OK when `c` (read from `path`) holds a model named `model` of `parameters`
// parameters trained with the global batch `batch` (or none recorded): a
// stop mid-epoch resumes only with the batches it was cut into.
// FailedPrecondition otherwise, saying which flag to change.
absl::Status CheckResumable(const Checkpoint& c, const std::string& path, const std::string& model,
                            size_t parameters, int64_t batch);

// "resuming from PATH after epoch 2", or where in an epoch and with how many ranks.
std::string ResumeNote(const std::string& path, const Position& at, int ranks);

}  // namespace dlp::fmnist
