// fmnist-train: data-parallel training on Fashion-MNIST. Rank 0 prints one
// JSON object per epoch on stdout; notes and errors go to stderr. SIGUSR1
// asks for a checkpoint at the current step and an exit with status 3.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "engine/exit_code.h"
#include "nlohmann/json.hpp"
#include "stop_request.h"
#include "trainer.h"

int main(int argc, char** argv) {
  // Before any thread starts: a stop request is then taken between steps only.
  dlp::fmnist::BlockStopRequests();
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
  app.add_option("--momentum", o.momentum, "SGD momentum")->capture_default_str();
  app.add_option("--weight-decay", o.weight_decay, "L2 weight decay added to the gradient")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Seed for initialisation and shuffling")->capture_default_str();
  app.add_option("--checkpoint", o.checkpoint_dir,
                 "Folder for the per-epoch checkpoint; resumes from it when present (under "
                 "dlp, default: $DLP_OUTPUT_DIR/checkpoint, so a restarted group resumes and "
                 "a new job trains afresh; give another job's to continue it)");
  bool overlap = true;
  CLI::Option* overlap_flag = app.add_flag(
      "--overlap,!--no-overlap", overlap,
      "All-reduce gradients in buckets while backward runs, or once after it (default: buckets "
      "on a GPU or where the host has two cores per local rank)");
  app.add_option("--bucket-kb", o.bucket_kb, "Smallest gradient bucket, in KiB, with --overlap")
      ->capture_default_str();
  // The model, the data, the device and the engine's own steps (trainer/).
  dlp::fmnist::AddEngineFlags(app, o.engine);
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
  if (overlap_flag->count() > 0) {
    o.overlap = overlap ? dlp::fmnist::Toggle::kOn
                        : dlp::fmnist::Toggle::kOff;
  }

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
  return dlp::fmnist::ExitCodeFor(status);  // 0; 2: flags, data, device; 3: stopped; 1
}
