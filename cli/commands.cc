#include "command.h"

namespace dlp::cli {

// The core verbs (submit, get, list, cancel, logs, wait, render) need nothing
// beyond jobs. Sweeps run in the foreground where the backend runs none, and
// `top` shows what it can without usage samples.
const std::vector<CommandEntry>& Commands() {
  static const std::vector<CommandEntry> kCommands = {
      {"submit", RegisterSubmit},
      {"status", RegisterStatus, Capability::kNone, {{"--why", Capability::kScheduler}}},
      {"list", RegisterList},
      {"logs", RegisterLogs},
      {"describe", RegisterDescribe},
      {"cancel", RegisterCancel},
      {"delete", RegisterDelete, Capability::kHistory},
      {"wait", RegisterWait},
      {"validate", RegisterValidate},
      {"render", RegisterRender},
      {"server", RegisterServer},
      {"profile", RegisterProfile},
      {"metrics", RegisterMetrics},
      {"top", RegisterTop},
      {"ui", RegisterUi, Capability::kMonitor},
      {"artifacts", RegisterArtifacts, Capability::kArtifacts},
      {"model", RegisterModel, Capability::kModels},
      {"pipeline", RegisterPipeline, Capability::kPipelines},
      {"queue", RegisterQueue, Capability::kScheduler},
      {"sweep", RegisterSweep},
      {"admin",
       RegisterAdmin,
       Capability::kNone,
       {{"tenant", Capability::kTenantAdmin},
        {"token", Capability::kTenantAdmin},
        {"queue", Capability::kQueueAdmin}}},
      {"config", RegisterConfig},
      {"version", RegisterVersion},
      {"completion", RegisterCompletion},
      {"__complete", RegisterComplete},
  };
  return kCommands;
}

}  // namespace dlp::cli
