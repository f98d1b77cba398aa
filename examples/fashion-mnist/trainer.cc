#include "trainer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "data/batch_loader.h"
#include "data/data_phase_delay.h"
#include "engine/engine.h"
#include "data_parallel_step.h"
#include "dlp/trace.h"
#include "models/evaluate.h"
#include "nn/flush_denormals.h"
#include "nn/rng.h"
#include "parallel/collective.h"
#include "ranks.h"
#include "run_state.h"
#include "stop_request.h"

namespace dlp::fmnist {
namespace {

// Every rank holds a batch's activations; a batch larger than the training set
// only asks for memory.
constexpr int kMaxBatch = 1 << 16;

// Every rank reports its batch loss every kMetricEvery steps (DLP_METRIC lines).
constexpr long kMetricEvery = 10;

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

absl::Status Validate(const TrainOptions& o) {
  if (o.epochs < 1) return absl::InvalidArgumentError("--epochs must be at least 1");
  if (o.batch < 1 || o.batch > kMaxBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("--batch must be from 1 to ", kMaxBatch, " (the training set has 60,000)"));
  }
  if (!(o.lr > 0)) return absl::InvalidArgumentError("--lr must be positive");
  if (o.momentum < 0 || o.momentum >= 1) {
    return absl::InvalidArgumentError("--momentum must be in [0, 1)");
  }
  if (o.weight_decay < 0) return absl::InvalidArgumentError("--weight-decay must not be negative");
  if (o.bucket_kb < 1 || o.bucket_kb > (1 << 20)) {
    return absl::InvalidArgumentError("--bucket-kb must be between 1 and 1048576");
  }
  return ValidateEngineOptions(o.engine, o.overlap);
}

}  // namespace

absl::Status Train(const TrainOptions& o, const TrainObserver& observer) {
  DLP_RETURN_IF_ERROR(Validate(o));
  // Before the communicator and the bucket thread start, so that they inherit it.
  const ScopedFlushDenormals flush_denormals;
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<Ranks> ranks, Ranks::Join());
  // The engine's own parts (the data read once a host, the sharded steps,
  // the evaluation) take their collectives on the same communicator.
  Collective engine_group(ranks->comm());
  DLP_ASSIGN_OR_RETURN(const Engine engine, Engine::Create(o.engine, engine_group));
  Kernels* const kernels = engine.kernels.get();
  Network& net = *engine.net;
  const Samples& train = engine.data.train;
  const bool rank0 = ranks->rank() == 0;
  const bool overlap = ranks->size() > 1 && o.engine.ShardOptimizer() != Toggle::kOn &&
                       ShouldOverlap(o.overlap, kernels->name(), ranks->local_size());
  const size_t count = net.parameter_count();
  const int per_rank = (o.batch + ranks->size() - 1) / ranks->size();
  // How the gradient meets the other ranks': all-reduced (data_parallel_step.h)
  // unless the engine's sharded step was asked for.
  DLP_ASSIGN_OR_RETURN(
      std::unique_ptr<TrainingStep> parallel_step,
      MakeShardedStep({.shard_optimizer = o.engine.ShardOptimizer(),
                       .shared_model = o.engine.shared_model,
                       .overlap = overlap,
                       .local_ranks = ranks->local_size(),
                       .per_rank = per_rank},
                      &engine_group, kernels, net));
  if (parallel_step == nullptr) {
    parallel_step = std::make_unique<DataParallelStep>(ranks.get(), kernels, count, overlap,
                                                       size_t{1024} * o.bucket_kb);
  }
  if (rank0 && observer.on_note) {
    const bool read_once = engine.data.read_once;
    observer.on_note(absl::StrCat("training ", o.engine.model, " (", count, " parameters) on ",
                                  kernels->name(), ", ", ranks->size(), " rank(s), ", train.count,
                                  " samples", read_once ? " read once on this host" : "",
                                  ranks->size() > 1 ? parallel_step->Describe() : ""));
  }

  DLP_ASSIGN_OR_RETURN(StartState start, Start(o, net, *ranks, observer));
  const float* const start_params = start.params_and_velocity.data();
  DLP_RETURN_IF_ERROR(parallel_step->Load(start_params, start_params + count));
  start.params_and_velocity = {};
  const Position& resume = start.at;
  float* const params = parallel_step->params();
  float* const velocity = parallel_step->velocity();

  Rng rng(resume.rng_state);
  BatchLoader loader(kernels, per_rank, parallel_step->batch_slot());
  const DataPhaseDelay delay(ranks->rank());  // none unless a test asks
  // Rank 0 writes the model and where the run stands (`at`) as DIR/NAME.
  const auto save = [&](const Position& at, const std::string& dir, const std::string& name) {
    return engine.Save(params, velocity, at, dir, name);
  };
  long step = static_cast<long>(resume.step);
  const long steps_per_epoch = (train.count + o.batch - 1) / o.batch;
  for (int epoch = static_cast<int>(resume.epoch) + 1; epoch <= o.epochs; ++epoch) {
    const auto epoch_start = std::chrono::steady_clock::now();
    // A stop mid-epoch resumes with the same permutation and the samples it had not reached.
    const uint64_t epoch_rng = rng.state();
    const std::vector<int> order = rng.Permutation(train.count);
    const bool resumed = epoch == resume.epoch + 1;
    const int first_sample =
        resumed ? static_cast<int>(std::min<int64_t>(resume.epoch_samples, train.count)) : 0;
    double loss = resumed ? resume.epoch_loss : 0;
    for (int begin = first_sample; begin < train.count; begin += o.batch) {
      const int global = std::min(o.batch, train.count - begin);
      const auto [lo, hi] = RankSlice(global, ranks->rank(), ranks->size());
      const float lr =
          LearningRate(o.engine.lr_schedule, o.lr, (epoch - 1) * steps_per_epoch + begin / o.batch,
                       o.epochs * steps_per_epoch);
      const float grad_scale = 1.0f / static_cast<float>(global);
      const auto momentum_step = [&](float* p, float* v, const float* g, size_t n) {
        kernels->MomentumStep(p, v, g, n, lr, o.momentum, grad_scale, o.weight_decay);
      };
      dlp_trace_begin_cat("step", "step");
      if (hi > lo) {
        dlp_trace_begin_cat("data", "phase");
        loader.Load(train, order.data() + begin + lo, hi - lo);
        delay.Apply();
        dlp_trace_end();
      }
      DLP_ASSIGN_OR_RETURN(
          const TrainingStep::Result summed,
          parallel_step->Run(net, loader.x(), loader.labels(), hi - lo, momentum_step));
      loss += summed.loss;
      dlp_trace_end_arg("samples", hi - lo);
      ++step;
      if (step % kMetricEvery == 0 && hi > lo) {
        dlp_metric("loss", summed.local.loss / (hi - lo), step);
      }
      DLP_ASSIGN_OR_RETURN(const bool stop, AnyRankAskedToStop(*ranks));
      if (stop) {
        const Position at{epoch - 1, begin + global, step, loss, epoch_rng, o.batch};
        DLP_RETURN_IF_ERROR(parallel_step->GatherVelocity());
        return StopAt(o, at, *ranks, observer, [&](const Position& p) {
          return save(p, o.checkpoint_dir, "checkpoint.bin");
        });
      }
    }
    const double train_seconds = Since(epoch_start);
    DLP_ASSIGN_OR_RETURN(const double accuracy,
                         TestAccuracy(engine.data.test, net, *kernels, params, engine_group));
    DLP_RETURN_IF_ERROR(parallel_step->GatherVelocity());  // for the checkpoint
    EpochReport report{epoch, train.count > 0 ? loss / train.count : 0.0, accuracy,
                       Since(epoch_start),
                       (train.count - first_sample) / std::max(train_seconds, 1e-9)};
    dlp_metric("samples_per_s", report.samples_per_second, step);
    if (rank0) {
      dlp_metric("epoch_loss", report.loss, step);
      dlp_metric("accuracy", report.test_accuracy, step);
      // Per epoch, step = the epoch: what a sweep's objective reads (asha's resource).
      dlp_metric("test_accuracy", report.test_accuracy, epoch);
    }
    if (!rank0) continue;
    // Under dlp the final model is what the job keeps: $DLP_OUTPUT_DIR/model.ckpt
    // (`dlp artifacts get`, `dlp model register`).
    const char* output = std::getenv("DLP_OUTPUT_DIR");
    const bool keep = output != nullptr && *output != '\0' && epoch == o.epochs;
    const Position at{epoch, 0, step, 0, rng.state(), o.batch};
    if (!o.checkpoint_dir.empty()) {
      DLP_RETURN_IF_ERROR(save(at, o.checkpoint_dir, "checkpoint.bin"));
    }
    if (keep) DLP_RETURN_IF_ERROR(save(at, output, "model.ckpt"));
    if (observer.on_epoch) observer.on_epoch(report);
  }
  return kernels->Check();
}

}  // namespace dlp::fmnist
