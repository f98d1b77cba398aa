#include "server/daemon/daemon_config.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "dlp/queue_config.h"
#include "dlp/status.h"
#include "server/store/queue_store.h"

namespace dlp::server {

absl::StatusOr<DaemonConfig> ParseDaemonConfig(const std::string& yaml,
                                               const std::string& filename) {
  DLP_ASSIGN_OR_RETURN(std::vector<Queue> queues, ParseQueuesYaml(yaml, filename));
  DaemonConfig config;
  for (const Queue& queue : queues) config.queues.push_back(ToQueueConfig(queue));
  return config;
}

absl::StatusOr<DaemonConfig> LoadDaemonConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read the file"));
  std::stringstream text;
  text << in.rdbuf();
  return ParseDaemonConfig(text.str(), path);
}

}  // namespace dlp::server
