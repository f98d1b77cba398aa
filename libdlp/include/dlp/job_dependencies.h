// spec.dependsOn: whether a job's dependencies allow it to start now, must
// still wait, or can never be met. dlpd decides with it each round, as does
// the process that moves a Kubernetes pipeline on (the Slurm backend lets
// Slurm decide, with --dependency).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "dlp/job.h"

namespace dlp {

enum class DependencyVerdict { kMet, kWaiting, kNever };

struct DependencyCheck {
  DependencyVerdict verdict = DependencyVerdict::kMet;
  // kWaiting: "waiting for job 12 (Running)"; kNever: "dependency job 12 failed".
  std::string reason;
};

// The state of job `id` now; nullopt when there is no such job.
using JobStateOf = std::function<std::optional<JobState>(const std::string& id)>;

// How `condition` stands for a job now in `state`.
DependencyVerdict ConditionVerdict(DependencyCondition condition, JobState state);

// All of `spec.depends_on` together: kNever as soon as one can never be met,
// else kWaiting on the first one not yet met, else kMet.
DependencyCheck CheckDependencies(const JobSpec& spec, const JobStateOf& state_of);

}  // namespace dlp
