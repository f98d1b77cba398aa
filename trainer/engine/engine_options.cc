#include "engine/engine_options.h"

#include <thread>

#include "CLI/CLI.hpp"

namespace dlp::fmnist {
namespace {

Toggle ToggleNamed(const std::string& name) {
  return name == "on" ? Toggle::kOn : name == "off" ? Toggle::kOff : Toggle::kAuto;
}

// A flag taking on, off or auto into `out` (a Toggle, or an optional one that
// stays unset without the flag), shown as off by default.
template <typename Out>
void AddToggle(CLI::App& app, const std::string& name, Out& out, const std::string& help) {
  app.add_option_function<std::string>(
         name, [&out](const std::string& v) { out = ToggleNamed(v); }, help)
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->default_str("off");
}

}  // namespace

void AddEngineFlags(CLI::App& app, EngineOptions& o) {
  app.add_option("--data", o.data_dir, "Folder with the Fashion-MNIST IDX .gz files")
      ->capture_default_str();
  app.add_option("--limit-train", o.limit_train, "Use only the first N training samples");
  app.add_option("--limit-test", o.limit_test, "Use only the first N test samples");
  app.add_option("--model", o.model, "Model")
      ->check(CLI::IsMember({"mlp", "cnn"}))
      ->capture_default_str();
  app.add_option("--hidden", o.hidden, "mlp: width of the first hidden layer (the second has half)")
      ->capture_default_str();
  app.add_option_function<std::string>(
         "--device",
         [&o](const std::string& v) {
           o.device = v == "cpu" ? DeviceKind::kCpu
                      : v == "cuda" ? DeviceKind::kCuda
                                    : DeviceKind::kAuto;
         },
         "cpu, cuda, or auto (CUDA when built with it and a GPU is present)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->default_str("auto");
  app.add_option_function<std::string>(
         "--lr-schedule",
         [&o](const std::string& v) {
           o.lr_schedule = v == "cosine" ? LrSchedule::kCosine : LrSchedule::kConstant;
         },
         "constant, or cosine: anneal the rate from --lr to 0 over all --epochs")
      ->check(CLI::IsMember({"constant", "cosine"}))
      ->default_str("constant");
  AddToggle(app, "--shard-optimizer", o.shard_optimizer,
            "Reduce-scatter the gradient and let each rank update its share of the model, "
            "then allgather it (ZeRO stage 1), instead of all-reducing it: on, off, or "
            "auto (on the CPU, when the gradient is reduced after backward and the ranks "
            "share one host or have one each)");
  AddToggle(app, "--shared-model", o.shared_model,
            "With the sharded optimizer, keep one copy of the model in shared memory that "
            "the ranks update in place, each summing its share of the gradient from the "
            "others' (of the MLP's weight gradient, from the others' activations), instead "
            "of a copy each and two collectives a step (an optimisation of this trainer's "
            "own, for ranks on one host): on, off, or auto (when every rank is on this host)");
}

bool ShouldOverlap(Toggle overlap, const std::string& device, int local_ranks) {
  if (overlap != Toggle::kAuto) return overlap == Toggle::kOn;
  if (device == "cuda") return true;
  return static_cast<long>(std::thread::hardware_concurrency()) >= 2L * local_ranks;
}

absl::Status ValidateEngineOptions(const EngineOptions& o, Toggle overlap) {
  if (o.hidden < 2 || o.hidden > 8192) {
    return absl::InvalidArgumentError("--hidden must be from 2 to 8192");
  }
  if (o.limit_train < 0 || o.limit_test < 0) {
    return absl::InvalidArgumentError("--limit-train and --limit-test must not be negative");
  }
  if (o.ShardOptimizer() == Toggle::kOn && overlap == Toggle::kOn) {
    return absl::InvalidArgumentError(
        "--shard-optimizer on and --overlap exclude each other: a sharded step reduce-scatters "
        "the whole gradient after backward");
  }
  if (o.shared_model == Toggle::kOn &&
      (o.ShardOptimizer() == Toggle::kOff || overlap == Toggle::kOn)) {
    return absl::InvalidArgumentError(
        "--shared-model on needs the sharded optimizer, which --shard-optimizer off and "
        "--overlap exclude");
  }
  return absl::OkStatus();
}

}  // namespace dlp::fmnist
