// fmnist-train: data-parallel training on Fashion-MNIST. Rank 0 prints one
// JSON object per epoch on stdout; notes and errors go to stderr. SIGUSR1
// asks for a checkpoint at the current step and an exit with status 3.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "nlohmann/json.hpp"
#include "stop_request.h"
#include "trainer.h"

namespace {

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return 0;
  switch (status.code()) {
    case absl::StatusCode::kCancelled:
      return 3;  // stopped on request (SIGUSR1) after its checkpoint: run again to go on
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
      return 2;  // fix the command line or the machine, then run again
    default:
      return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread starts: a stop request is then taken between steps only.
  dlp::fmnist::BlockStopRequests();
  using dlp::fmnist::DeviceKind;
  dlp::fmnist::TrainOptions o;
  CLI::App app{"Trains a classifier on Fashion-MNIST, data-parallel across the ranks that "
               "dlp-run starts (one process when run alone).",
               "fmnist-train"};
  // A flag given twice keeps its last value, so wrappers can append overrides.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--epochs", o.epochs, "Epochs to train (a resumed run counts the done ones)")
      ->capture_default_str();
  app.add_option("--batch", o.batch, "Global batch size, split across the ranks (1 to 65536)")
      ->capture_default_str();
  app.add_option("--lr", o.lr, "Learning rate")->capture_default_str();
  std::string lr_schedule = "constant";
  app.add_option("--lr-schedule", lr_schedule,
                 "constant, or cosine: anneal the rate from --lr to 0 over all --epochs")
      ->check(CLI::IsMember({"constant", "cosine"}))
      ->capture_default_str();
  app.add_option("--momentum", o.momentum, "SGD momentum")->capture_default_str();
  app.add_option("--weight-decay", o.weight_decay, "L2 weight decay added to the gradient")
      ->capture_default_str();
  app.add_option("--hidden", o.hidden, "mlp: width of the first hidden layer (the second has half)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Seed for initialisation and shuffling")->capture_default_str();
  app.add_option("--model", o.model, "Model")
      ->check(CLI::IsMember({"mlp", "cnn"}))
      ->capture_default_str();
  app.add_option("--checkpoint", o.checkpoint_dir,
                 "Folder for the per-epoch checkpoint; resumes from it when present (under "
                 "dlp, default: $DLP_OUTPUT_DIR/checkpoint, so a restarted group resumes and "
                 "a new job trains afresh; give another job's to continue it)");
  app.add_option("--data", o.data_dir, "Folder with the Fashion-MNIST IDX .gz files")
      ->capture_default_str();
  std::string device = "auto";
  app.add_option("--device", device, "cpu, cuda, or auto (CUDA when built with it and a GPU is present)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  app.add_option("--limit-train", o.limit_train, "Use only the first N training samples");
  app.add_option("--limit-test", o.limit_test, "Use only the first N test samples");
  bool overlap = true;
  CLI::Option* overlap_flag = app.add_flag(
      "--overlap,!--no-overlap", overlap,
      "All-reduce gradients in buckets while backward runs, or once after it (default: buckets "
      "on a GPU or where the host has two cores per local rank)");
  app.add_option("--bucket-kb", o.bucket_kb, "Smallest gradient bucket, in KiB, with --overlap")
      ->capture_default_str();
  // on, off or auto; off by default: the default step all-reduces the gradient.
  const auto add_toggle = [&app](const char* name, dlp::fmnist::Toggle& value,
                                 const std::string& help) {
    using Toggle = dlp::fmnist::Toggle;
    return app.add_option_function<std::string>(
           name,
           [&value](const std::string& v) {
             value = v == "on" ? Toggle::kOn : v == "off" ? Toggle::kOff : Toggle::kAuto;
           },
           help)
        ->check(CLI::IsMember({"auto", "on", "off"}))
        ->default_str("off");
  };
  CLI::Option* shard_flag = add_toggle("--shard-optimizer", o.shard_optimizer,
             "Reduce-scatter the gradient and let each rank update its share of the model, "
             "then allgather it (ZeRO stage 1), instead of all-reducing it: on, off, or "
             "auto (on the CPU, when the gradient is reduced after backward and the ranks "
             "share one host or have one each)");
  add_toggle("--shared-model", o.shared_model,
             "With the sharded optimizer, keep one copy of the model in shared memory that "
             "the ranks update in place, each summing its share of the gradient from the "
             "others' (of the MLP's weight gradient, from the others' activations), instead "
             "of a copy each and two collectives a step (an optimisation of this trainer's "
             "own, for ranks on one host): on, off, or auto (when every rank is on this host)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad flag or value is a usage error: 2, as documented.
    return app.exit(e) == 0 ? 0 : 2;
  }
  // The job's own folder: a second job of the same spec must not find the
  // first one's checkpoint and skip its training.
  if (const char* output = std::getenv("DLP_OUTPUT_DIR");
      o.checkpoint_dir.empty() && output != nullptr && *output != '\0') {
    o.checkpoint_dir = std::string(output) + "/checkpoint";
  }
  // The shared model is a mode of the sharded optimizer: asking for it asks for both.
  if (shard_flag->count() == 0) o.shard_optimizer = o.shared_model;
  o.lr_schedule = lr_schedule == "cosine" ? dlp::fmnist::LrSchedule::kCosine
                                          : dlp::fmnist::LrSchedule::kConstant;
  if (overlap_flag->count() > 0) {
    o.overlap = overlap ? dlp::fmnist::Toggle::kOn
                        : dlp::fmnist::Toggle::kOff;
  }
  o.device = device == "cpu" ? DeviceKind::kCpu
             : device == "cuda" ? DeviceKind::kCuda
                                : DeviceKind::kAuto;

  dlp::fmnist::TrainObserver observer;
  observer.on_epoch = [](const dlp::fmnist::EpochReport& r) {
    const nlohmann::ordered_json line = {{"epoch", r.epoch},
                                 {"loss", r.loss},
                                 {"test_accuracy", r.test_accuracy},
                                 {"seconds", r.seconds},
                                 {"samples_per_second", r.samples_per_second}};
    std::cout << line.dump() << std::endl;  // flushed: dlp-run relays it line by line
  };
  observer.on_note = [](const std::string& note) {
    std::cerr << "fmnist-train: " << note << std::endl;
  };
  const absl::Status status = dlp::fmnist::Train(o, observer);
  if (!status.ok() && !absl::IsCancelled(status)) {
    std::cerr << "fmnist-train: error: " << status.message() << std::endl;
  }
  return ExitCodeFor(status);
}
