// Data-parallel synchronous SGD with momentum on Fashion-MNIST.
//
// Every rank walks the same seeded permutation of the training set; each
// global batch is split into contiguous per-rank slices, each rank adds up the
// per-sample gradients of its slice, and allreduces (in buckets beside
// backward, or one after it) sum them with the loss, so every rank applies the
// same update: the global-batch mean gradient. With a fixed global batch the run
// therefore does the same arithmetic for 1 or N ranks up to float rounding,
// and a run stopped between two steps (stop_request.h) goes on from its
// checkpoint with any number of ranks: the same global batches, each cut
// into as many slices as there are ranks now.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "dlp/status.h"
#include "engine/engine_options.h"

namespace dlp::fmnist {

struct TrainOptions {
  int epochs = 5;
  int batch = 64;  // global, across all ranks
  float lr = 0.05f;
  float momentum = 0.9f;
  float weight_decay = 0;  // L2 penalty added to the gradient: wd * params
  uint64_t seed = 1;
  std::string checkpoint_dir;  // empty: no checkpoints
  // All-reduce the gradient in buckets of at least bucket_kb KiB while backward
  // runs (gradient_buckets.h), or once after backward. kAuto overlaps where a
  // GPU computes or the host has a spare core for each rank's bucket thread:
  // where the ranks fill the cores, that thread only takes turns with backward
  // (bench/history/RESULTS-2026.md, "Trainer scaling").
  Toggle overlap = Toggle::kAuto;
  int bucket_kb = 128;
  // The data, the model, the device and the engine's own steps (the default
  // step is what a PyTorch DDP or Keras program does, above).
  EngineOptions engine;
};

struct EpochReport {
  int epoch = 0;               // 1-based
  double loss = 0;             // mean training loss over the epoch
  double test_accuracy = 0;
  double seconds = 0;          // wall time of the epoch, evaluation included
  double samples_per_second = 0;  // training samples over training time
};

struct TrainObserver {
  std::function<void(const EpochReport&)> on_epoch;  // rank 0 only
  std::function<void(const std::string&)> on_note;   // rank 0 only: resume, device
};

// Runs the whole training. Cancelled when SIGUSR1 asked it to stop
// (stop_request.h; the checkpoint then holds the step reached). Errors:
// InvalidArgument for bad options, NotFound for missing data,
// FailedPrecondition for an unusable device or a checkpoint of another model
// or global batch, Internal for a failed collective or device call.
absl::Status Train(const TrainOptions& options, const TrainObserver& observer);

}  // namespace dlp::fmnist
