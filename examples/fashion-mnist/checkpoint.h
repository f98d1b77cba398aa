// Training checkpoints: DIR/checkpoint.bin, replaced atomically (temporary
// file, fsync, rename, fsync of the folder), so a crash leaves either the old
// or the new checkpoint, never a torn one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dlp/status.h"

namespace dlp::fmnist {

struct Checkpoint {
  std::string model;
  int64_t epoch = 0;        // epochs completed
  uint64_t rng_state = 0;   // the shuffle RNG, ready for the next epoch
  std::vector<float> params;
  std::vector<float> velocity;  // momentum, same length as params
};

// Creates DIR if needed. Errors name the path and the failing system call.
absl::Status SaveCheckpoint(const std::string& dir, const Checkpoint& checkpoint);

// The same file as DIR/NAME (the final model a job keeps, `model.ckpt`).
absl::Status SaveCheckpointAs(const std::string& dir, const std::string& name,
                              const Checkpoint& checkpoint);

// NotFound when DIR has no checkpoint; DataLoss for a corrupt file.
absl::StatusOr<Checkpoint> LoadCheckpoint(const std::string& dir);

std::string CheckpointPath(const std::string& dir);

}  // namespace dlp::fmnist
