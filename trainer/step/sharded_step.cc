#include "step/sharded_step.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dlp/trace.h"
#include "step/activation_exchange.h"
#include "step/shard_exchange.h"
#include "step/step_layout.h"

namespace dlp::fmnist {
namespace {

// Each rank sums its share of the gradient (shard_exchange.h) and updates
// that share of the model.
class GradientShardStep : public TrainingStep {
 public:
  GradientShardStep(Collective* group, Kernels* kernels, const StepLayout& layout,
                    std::unique_ptr<ShardExchange> exchange)
      : group_(group), kernels_(kernels), layout_(layout), exchange_(std::move(exchange)) {}

  std::string Describe() const override {
    return absl::StrCat(", gradients ",
                        exchange_->shared() ? "summed in shared memory" : "reduce-scattered",
                        " after backward, each rank updating its share of ",
                        exchange_->shared() ? "one shared model" : "the model");
  }
  absl::Status Load(const float* params, const float* velocity) override {
    return exchange_->Load(params, velocity, layout_.parameters);
  }
  float* params() const override { return exchange_->params() + layout_.param_lead; }
  float* velocity() const override { return exchange_->velocity() + layout_.param_lead; }

  absl::StatusOr<Result> Run(Network& net, const float* x, const int32_t* labels, int rows,
                             const Update& update) override {
    float* const flat = exchange_->flat();
    float* const grads = flat + layout_.lead;  // the CPU's: the network writes it in place
    Result r;
    // TrainStep writes every gradient element; a rank without samples sends zeros.
    if (rows > 0) {
      r.local = net.TrainStep(params(), x, labels, rows, grads);
    } else {
      kernels_->Zero(grads, layout_.parameters);
    }
    DLP_RETURN_IF_ERROR(kernels_->Check());
    flat[0] = static_cast<float>(r.local.loss);
    DLP_RETURN_IF_ERROR(exchange_->SumGradients());
    dlp_trace_begin_cat("optimizer", "phase");
    const size_t first = layout_.OwnedBegin(group_->rank());
    update(exchange_->params() + first, exchange_->velocity() + first, flat + first,
           layout_.OwnedEnd(group_->rank()) - first);
    DLP_RETURN_IF_ERROR(exchange_->ShareParameters());
    dlp_trace_end();
    r.loss = flat[0];
    return r;
  }
  absl::Status GatherVelocity() override { return exchange_->ShareVelocity(); }

 private:
  Collective* group_;
  Kernels* kernels_;
  const StepLayout layout_;
  std::unique_ptr<ShardExchange> exchange_;
};

// A dense model's ranks on one host: each multiplies out its rows of the
// summed weight gradient from every rank's activations (activation_exchange.h).
class ActivationShardStep : public TrainingStep {
 public:
  explicit ActivationShardStep(std::unique_ptr<ActivationExchange> exchange)
      : exchange_(std::move(exchange)) {}

  std::string Describe() const override {
    return ", weight gradients summed from every rank's activations in shared memory after "
           "backward, each rank updating its rows of one shared model";
  }
  absl::Status Load(const float* params, const float* velocity) override {
    return exchange_->Load(params, velocity);
  }
  float* params() const override { return exchange_->params(); }
  float* velocity() const override { return exchange_->velocity(); }
  float* batch_slot() const override { return exchange_->batch_slot(); }

  absl::StatusOr<Result> Run(Network& net, const float* x, const int32_t* labels, int rows,
                             const Update& update) override {
    Result r;
    if (rows > 0) r.local = net.Backpropagate(params(), x, labels, rows);
    DLP_RETURN_IF_ERROR(
        exchange_->Publish(net, x, std::max(rows, 0), static_cast<float>(r.local.loss)));
    dlp_trace_begin_cat("optimizer", "phase");
    float* const p = params();
    float* const v = velocity();
    DLP_ASSIGN_OR_RETURN(r.loss,
                         exchange_->SumAndUpdate([&](size_t first, const float* g, size_t n) {
                           update(p + first, v + first, g, n);
                         }));
    dlp_trace_end();
    return r;
  }

 private:
  std::unique_ptr<ActivationExchange> exchange_;
};

// Automatically only where the reduce-scatter and allgather move no more
// bytes between hosts than the allreduce: one host, or one rank a host. With
// several hosts of several ranks the allreduce is hierarchical (one leader a
// host on the slow links) and the block collectives are not.
absl::StatusOr<bool> ShouldShard(const ShardOptions& o, int ranks, const Kernels& k) {
  if (ranks == 1 || o.shard_optimizer == Toggle::kOff) return false;
  if (o.shard_optimizer == Toggle::kOn && !k.host_memory()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--shard-optimizer on needs --device cpu; this run trains on ", k.name()));
  }
  if (o.shard_optimizer == Toggle::kOn) return true;
  return k.host_memory() && !o.overlap && (o.local_ranks == ranks || o.local_ranks == 1);
}

std::unique_ptr<TrainingStep> ThroughCollectives(Collective* group, Kernels* kernels,
                                                 const StepLayout& layout) {
  return std::make_unique<GradientShardStep>(group, kernels, layout,
                                             ShardExchange::ThroughCollectives(group, layout));
}

// Through shared memory where it may and can (every rank on this host): the
// layers' factors of a dense model, else the gradients; otherwise through
// collectives.
absl::StatusOr<std::unique_ptr<TrainingStep>> MakeExchange(const ShardOptions& o, Collective* group,
                                                           Kernels* kernels,
                                                           const StepLayout& layout,
                                                           const Network& net) {
  const bool one_host = o.local_ranks == group->size();
  if (o.shared_model == Toggle::kOff || (o.shared_model == Toggle::kAuto && !one_host)) {
    return ThroughCollectives(group, kernels, layout);
  }
  absl::Status status;
  if (std::vector<Network::DenseLayer> dense = net.DenseLayers(); !dense.empty()) {
    absl::StatusOr<std::unique_ptr<ActivationExchange>> activations =
        ActivationExchange::Create(group, kernels, std::move(dense), layout.parameters, o.per_rank);
    if (activations.ok()) return std::make_unique<ActivationShardStep>(*std::move(activations));
    status = activations.status();
  } else {
    absl::StatusOr<std::unique_ptr<ShardExchange>> gradients =
        ShardExchange::ThroughSharedMemory(group, layout);
    if (gradients.ok()) {
      return std::make_unique<GradientShardStep>(group, kernels, layout, *std::move(gradients));
    }
    status = gradients.status();
  }
  // A rank that cannot share (another host, a full /dev/shm) fails the
  // allocation on every rank, so every rank falls back alike.
  if (o.shared_model == Toggle::kAuto) return ThroughCollectives(group, kernels, layout);
  return status;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TrainingStep>> MakeShardedStep(const ShardOptions& o,
                                                              Collective* group, Kernels* kernels,
                                                              const Network& net) {
  DLP_ASSIGN_OR_RETURN(const bool shard, ShouldShard(o, group->size(), *kernels));
  if (!shard) {
    if (group->size() > 1 && o.shared_model == Toggle::kOn) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--shared-model on needs the sharded optimizer, which runs on the CPU; this run "
          "trains on ",
          kernels->name()));
    }
    return nullptr;
  }
  return MakeExchange(o, group, kernels, StepLayout(net.parameter_count(), group->size(), true),
                      net);
}

}  // namespace dlp::fmnist
