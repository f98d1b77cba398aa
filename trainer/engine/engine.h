// The engine's parts that a trainer's loop drives, made as EngineOptions say:
// the kernels of the chosen device, the data (read once per host) and the
// network; and the model's checkpoint, written from the device.
#pragma once

#include <memory>
#include <string>

#include "checkpoint/checkpoint.h"
#include "data/host_dataset.h"
#include "dlp/status.h"
#include "engine/engine_options.h"
#include "models/network.h"
#include "nn/kernels.h"
#include "parallel/collective.h"

namespace dlp::fmnist {

struct Engine {
  // Every rank of `group` calls it (the data is read once per host). Errors:
  // FailedPrecondition for an unusable device, NotFound for missing data,
  // InvalidArgument for an unknown model.
  static absl::StatusOr<Engine> Create(const EngineOptions& o, Collective& group);

  // Writes the model at `params` and `velocity` (device memory) and where the
  // run stands, `at`, as DIR/NAME (checkpoint.h).
  absl::Status Save(const float* params, const float* velocity, const Position& at,
                    const std::string& dir, const std::string& name) const;

  std::unique_ptr<Kernels> kernels;
  HostDatasets data;
  std::unique_ptr<Network> net;
};

}  // namespace dlp::fmnist
