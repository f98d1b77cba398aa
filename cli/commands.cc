#include "command.h"

namespace dlp::cli {

const std::vector<CommandEntry>& Commands() {
  static const std::vector<CommandEntry> kCommands = {
      {"submit", RegisterSubmit},
      {"status", RegisterStatus},
      {"list", RegisterList},
      {"logs", RegisterLogs},
      {"describe", RegisterDescribe},
      {"cancel", RegisterCancel},
      {"delete", RegisterDelete},
      {"wait", RegisterWait},
      {"validate", RegisterValidate},
      {"render", RegisterRender},
      {"server", RegisterServer},
      {"profile", RegisterProfile},
      {"metrics", RegisterMetrics},
      {"top", RegisterTop},
      {"ui", RegisterUi},
      {"artifacts", RegisterArtifacts},
      {"model", RegisterModel},
      {"pipeline", RegisterPipeline},
      {"queue", RegisterQueue},
      {"sweep", RegisterSweep},
      {"admin", RegisterAdmin},
      {"config", RegisterConfig},
      {"version", RegisterVersion},
      {"completion", RegisterCompletion},
      {"__complete", RegisterComplete},
  };
  return kCommands;
}

}  // namespace dlp::cli
