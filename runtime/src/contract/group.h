// The group file (docs/runtime-contract.md, "Group file"): the roles dlp-run
// launches and how it restarts them. dlpd's executor, `dlp render` and the
// Slurm backend write it; dlp-run reads it. This is its one codec.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/files/atomic_write.h"
#include "contract/files.h"
#include "contract/names.h"

namespace dlp::contract {

// What one replica was placed on: exactly its CUDA_VISIBLE_DEVICES ("0,1",
// "MIG-<uuid>", or "" for none) and the variables of its device share (MPS).
struct ReplicaDevices {
  std::string visible;
  std::map<std::string, std::string> env;
  friend bool operator==(const ReplicaDevices&, const ReplicaDevices&) = default;
};

struct Role {
  std::string role = "worker";  // chief, ps, worker, evaluator, or "rank" for -np
  int count = 1;
  std::vector<std::string> command;
  std::map<std::string, std::string> env;
  int gpus = 0;  // GPUs per replica
  // The devices dlpd placed each replica on, one entry per replica (index =
  // replica index); empty: dlp-run assigns `gpus` from --gpus or the machine.
  std::vector<ReplicaDevices> devices;
};

struct Group {
  Framework framework = Framework::kNone;
  std::string workdir;  // empty: dlp-run's working directory
  std::vector<Role> roles;
  RestartPolicy restart_policy = RestartPolicy::kNever;
  int max_restarts = 0;
  // spec.successPolicy.roles: a round succeeds once every rank of these roles
  // exited 0, and the ranks still running are stopped (launch/success_policy.h).
  // Empty: every rank must exit 0.
  std::vector<std::string> success_roles;
  // Restarts the job had before this launch (dlpd starts a preempted job
  // again): the first round's DLP_RESTART_COUNT, so that it resumes from its
  // checkpoint. max_restarts counts this launch's restarts only.
  int restart_count = 0;
  // The job's own maxRestarts, when failures before this launch used up some
  // of it (max_restarts is then what is left): TORCHELASTIC_MAX_RESTARTS, the
  // same through every restart and re-form, as torchrun's --max-restarts.
  // 0: max_restarts.
  int job_max_restarts = 0;
  absl::Duration backoff = absl::ZeroDuration();
  // Each replica's log file is rotated past this size (launch/output.h); 0: no limit.
  int64_t log_max_bytes = 0;
};

// TORCHELASTIC_MAX_RESTARTS: the job's maxRestarts, whatever this launch has left.
inline int TorchMaxRestarts(const Group& group) {
  return group.job_max_restarts > 0 ? group.job_max_restarts : group.max_restarts;
}

// The group file's JSON text (pretty, fields in the documented order).
std::string GroupToJson(const Group& group);

// Parses a group file's text; InvalidArgument naming `source` and the field.
absl::StatusOr<Group> ParseGroupJson(const std::string& text, const std::string& source);
// NotFound when `path` cannot be read; else as ParseGroupJson with the path as source.
absl::StatusOr<Group> ReadGroupFile(const std::string& path);
// GroupToJson written atomically with mode 0600 (see base::FileSync).
absl::Status WriteGroupFile(const std::string& path, const Group& group,
                            base::FileSync sync = base::FileSync::kDurable);

}  // namespace dlp::contract
