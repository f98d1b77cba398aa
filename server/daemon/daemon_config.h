// `dlpd --config FILE`: the daemon's settings in YAML (dlpd(8), "CONFIGURATION").
// Today: the queues (dlp/queue_config.h), applied at every start; the file wins over the store for
// the queues it names, and queues it does not name are left as they are.
//
//   queues:
//   - name: vision
//     cohort: lab
//     nominal: {cpu: 8, memory: 64Gi, gpu: 4, gpu.h100: 2}
//     borrowingLimit: {gpu: 2}
//     lendingLimit: {cpu: 4}
//     weight: 2
//     priorityRange: [-100, 1000]
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/scheduler/queue_config.h"

namespace dlp::server {

struct DaemonConfig {
  std::vector<QueueConfig> queues;
};

// Reads and checks the file. InvalidArgument listing every problem as
// "FILE:LINE:COLUMN: FIELD: what is wrong".
absl::StatusOr<DaemonConfig> LoadDaemonConfig(const std::string& path);
// The same for text already read (`filename` names it in messages).
absl::StatusOr<DaemonConfig> ParseDaemonConfig(const std::string& yaml,
                                               const std::string& filename);

}  // namespace dlp::server
