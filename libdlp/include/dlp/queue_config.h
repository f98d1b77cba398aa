// Queues as their owner writes them down (docs/scheduling.md): the names a
// queue and a cohort take, and a list of queues in YAML, the `queues` of
// `dlpd --config FILE` (dlpd(8), "CONFIGURATION"):
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
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/queue.h"

namespace dlp {

// OK for the name of a queue or a cohort: a DNS label ("vision", "lab-2"), as
// a job's spec.queue. InvalidArgument saying what is wrong with it.
absl::Status ValidateQueueName(std::string_view name);

// The queues of a YAML document whose one member is `queues` (an empty
// document: none). InvalidArgument listing every problem, one a line, as
// "FILENAME:LINE:COLUMN: FIELD: what is wrong" (`filename` names the text).
absl::StatusOr<std::vector<Queue>> ParseQueuesYaml(const std::string& yaml,
                                                   const std::string& filename);

}  // namespace dlp
