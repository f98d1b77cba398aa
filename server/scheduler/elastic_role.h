// Elastic jobs as the scheduler sees them (the helpers are in elastic.h): a
// job whose worker role runs with between `min` and `max` replicas
// (replicas.worker.minCount and count, dlp-job(5)). Replicas are named
// ROLE-i; a job at size k runs ROLE-0..k-1, so a shrink drops the
// highest-numbered replicas (the most recently grown) and a grow adds the
// next ones. Every change of size re-forms the group
// (docs/runtime-contract.md).
#pragma once

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "server/scheduler/resources.h"

namespace dlp::server {

// How often a running elastic job may grow: at least this long after its
// start or its last resize (dlpd --resize-interval).
inline constexpr absl::Duration kDefaultResizeInterval = absl::Seconds(60);

struct ElasticRole {
  std::string role;  // "worker"; empty: the job is rigid
  int min = 0;
  int max = 0;
  ResourceVector per_replica;  // one replica's resources
  int64_t gpu_millis = 0;      // one replica's GPUs (0: none)
  std::string gpu_type;
  bool elastic() const { return !role.empty() && min < max; }
  friend bool operator==(const ElasticRole&, const ElasticRole&) = default;
};

}  // namespace dlp::server
