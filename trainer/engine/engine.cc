#include "engine/engine.h"

#include <vector>

namespace dlp::fmnist {

absl::StatusOr<Engine> Engine::Create(const EngineOptions& o, Collective& group) {
  Engine engine;
  DLP_ASSIGN_OR_RETURN(engine.kernels, MakeKernels(o.device));
  DLP_ASSIGN_OR_RETURN(engine.data, LoadDatasetsOncePerHost(group, o.data_dir, o.limit_train,
                                                            o.limit_test));
  DLP_ASSIGN_OR_RETURN(engine.net, Network::Create(o.model, o.hidden, engine.kernels.get()));
  return engine;
}

absl::Status Engine::Save(const float* params, const float* velocity, const Position& at,
                          const std::string& dir, const std::string& name) const {
  const size_t count = net->parameter_count();
  Checkpoint c{net->model(), at, std::vector<float>(count), std::vector<float>(count)};
  kernels->CopyToHost(c.params.data(), params, count * sizeof(float));
  kernels->CopyToHost(c.velocity.data(), velocity, count * sizeof(float));
  DLP_RETURN_IF_ERROR(kernels->Check());
  return SaveCheckpointAs(dir, name, c);
}

}  // namespace dlp::fmnist
