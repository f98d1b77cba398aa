// Where a run starts and what it leaves behind: rank 0 reads the checkpoint
// (or initialises the model) and broadcasts it, so that ranks on other hosts
// need not see the checkpoint folder; rank 0 writes checkpoints.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "dlp/status.h"
#include "models/network.h"
#include "ranks.h"
#include "trainer.h"

namespace dlp::fmnist {

struct StartState {
  Position at;                             // where training goes on
  std::vector<float> params_and_velocity;  // 2 * parameter count
};

// The same on every rank. FailedPrecondition on rank 0 for a checkpoint of
// another model or another global batch (a stop mid-epoch resumes only with
// the batches it was cut into); Aborted on the other ranks then.
absl::StatusOr<StartState> Start(const TrainOptions& o, const Network& net, Ranks& ranks,
                                 const TrainObserver& observer);

// Ends a run that every rank agreed to stop after the step that reached `at`
// (stop_request.h): rank 0 writes the checkpoint through `save` when there is
// a --checkpoint folder, and every rank learns whether it could. Returns
// Cancelled (fmnist-train exits 3), or rank 0's error writing.
absl::Status StopAt(const TrainOptions& o, const Position& at, Ranks& ranks,
                    const TrainObserver& observer,
                    const std::function<absl::Status(const Position&)>& save);

}  // namespace dlp::fmnist
