// What a program chooses of the engine: the data, the model, the device, the
// learning-rate schedule and the engine's own sharded steps; and the flags
// that choose them, for a program whose command line is a CLI11 app.
#pragma once

#include <optional>
#include <string>

#include "data/dataset.h"
#include "dlp/status.h"
#include "nn/kernels.h"
#include "nn/lr_schedule.h"
#include "step/sharded_step.h"

namespace CLI {
class App;
}  // namespace CLI

namespace dlp::fmnist {

struct EngineOptions {
  std::string data_dir = kDefaultDataDir;
  int limit_train = 0;  // > 0: only the first N training samples
  int limit_test = 0;   // > 0: only the first N test samples
  std::string model = "mlp";
  int hidden = 256;  // mlp: the first hidden layer's width (the second has half)
  DeviceKind device = DeviceKind::kAuto;
  LrSchedule lr_schedule = LrSchedule::kConstant;
  // The engine's own optimisations, asked for by name (step/sharded_step.h):
  // a sharded optimizer, and one model in shared memory for the ranks of a
  // host. Unset, the sharded optimizer follows the shared model, a mode of it.
  std::optional<Toggle> shard_optimizer;
  Toggle shared_model = Toggle::kOff;

  Toggle ShardOptimizer() const { return shard_optimizer.value_or(shared_model); }
};

// Adds --data, --limit-train, --limit-test, --model, --hidden, --device,
// --lr-schedule, --shard-optimizer and --shared-model to `app`, which fills
// `o` as it parses (a bad value is a parse error).
void AddEngineFlags(CLI::App& app, EngineOptions& o);

// Whether to all-reduce the gradient in buckets beside backward: `overlap`
// when on or off; for auto, where it pays: on a GPU, or where the bucket
// thread has a core of its own (two a local rank); otherwise it only takes
// turns with backward.
bool ShouldOverlap(Toggle overlap, const std::string& device, int local_ranks);

// InvalidArgument naming the flag. `overlap` is the program's choice of
// all-reducing the gradient beside backward, which the sharded steps exclude.
absl::Status ValidateEngineOptions(const EngineOptions& o, Toggle overlap);

}  // namespace dlp::fmnist
