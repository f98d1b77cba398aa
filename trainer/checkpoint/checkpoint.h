// Training checkpoints: DIR/checkpoint.bin, replaced atomically (temporary
// file, fsync, rename, fsync of the folder), so a crash leaves either the old
// or the new checkpoint, never a torn one. Written after every epoch and when
// a run is asked to stop between steps (examples/fashion-mnist/stop_request.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dlp/status.h"

namespace dlp::fmnist {

// Where a run stands between two optimizer steps: enough to go on from there
// with any number of ranks, since every rank draws the same permutation and
// cuts the same global batches from it (examples/fashion-mnist/trainer.h).
struct Position {
  int64_t epoch = 0;          // epochs completed
  int64_t epoch_samples = 0;  // samples of the next epoch trained already (a stop mid-epoch)
  int64_t step = 0;           // optimizer steps taken in all
  double epoch_loss = 0;      // the training loss summed over those samples
  uint64_t rng_state = 0;     // the shuffle RNG that draws the next epoch's permutation
  int64_t batch = 0;          // the global batch; 0: not recorded (a version 1 file)
};

struct Checkpoint {
  std::string model;
  Position at;
  std::vector<float> params;
  std::vector<float> velocity;  // momentum, same length as params
};

// Creates DIR if needed. Errors name the path and the failing system call.
absl::Status SaveCheckpoint(const std::string& dir, const Checkpoint& checkpoint);

// The same file as DIR/NAME (the final model a job keeps, `model.ckpt`).
absl::Status SaveCheckpointAs(const std::string& dir, const std::string& name,
                              const Checkpoint& checkpoint);

// NotFound when DIR has no checkpoint; DataLoss for a corrupt file. Reads
// version 1 files too (a position at an epoch's end, no batch recorded).
absl::StatusOr<Checkpoint> LoadCheckpoint(const std::string& dir);

std::string CheckpointPath(const std::string& dir);

}  // namespace dlp::fmnist
