// The constraints of dlp-job(5), shared by the YAML decoder (which reports them
// with file:line:column) and ValidateJobSpec (specs built in code or received
// over the API). Each check returns nothing when the value is fine, or what is
// wrong with it, phrased to follow "FIELD.PATH: ".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "contract/names.h"
#include "dlp/job.h"

namespace dlp::internal {

using Problem = std::optional<std::string>;

inline constexpr absl::string_view kApiVersion = "dlp/v1";
inline constexpr absl::string_view kKind = "Job";
// Canonical role order: ranks are numbered chief, ps, worker, evaluator.
inline constexpr std::array<absl::string_view, 4> kRoles = {"chief", "ps", "worker", "evaluator"};

// spec.priority's named classes (dlp-job(5)); a spec stores the integer.
struct PriorityClass {
  absl::string_view name;
  int value;
};
inline constexpr PriorityClass kPriorityClasses[] = {
    {"low", -100}, {"normal", 0}, {"high", 100}, {"critical", 1000}};
inline constexpr std::array<absl::string_view, 4> kPriorityClassNames = {"low", "normal", "high",
                                                                         "critical"};
// The value of a named class; nullopt for any other name.
std::optional<int> PriorityClassValue(absl::string_view name);

// The maxima of dlp-job(5) (docs/limits.md). Each is far beyond a sane job and
// small enough that no sum or product of them overflows an int64.
inline constexpr int kMaxReplicasPerRole = 1024;
inline constexpr int kMaxReplicas = 2048;  // all roles together
inline constexpr int kMaxRestarts = 100;
inline constexpr int kDefaultMaxRestarts = 3;  // OnFailure / ExitCode without maxRestarts
inline constexpr int kMaxBackoffSeconds = 3600;
inline constexpr int kMaxGpus = 64;                                       // per replica
inline constexpr size_t kMaxGpuTypeBytes = 128;
inline constexpr int64_t kMaxCpuMillis = int64_t{4096} * 1000;            // per replica: 4096 CPUs
inline constexpr int64_t kMaxMemoryBytes = int64_t{16} << 40;             // per replica: 16Ti
inline constexpr int kMaxPreemptionGraceSeconds = 3600;
inline constexpr int64_t kMaxDeadlineSeconds = int64_t{366} * 24 * 3600;  // a year
inline constexpr int kMaxLabels = 64;
inline constexpr int kMaxDependencies = 64;        // spec.dependsOn entries
inline constexpr int kMaxEnvVars = 256;            // per replica, spec.env included
inline constexpr size_t kMaxEnvBytes = 128 << 10;  // names and values, per replica
inline constexpr size_t kMaxEnvNameBytes = 256;
inline constexpr int kMaxCommandArgs = 1024;
inline constexpr size_t kMaxCommandBytes = 128 << 10;  // every argument together
inline constexpr size_t kMaxWorkdirBytes = 4096;       // PATH_MAX
inline constexpr size_t kMaxImageBytes = 500;          // Kubeflow Trainer's bound, the tightest
// A spec document (the YAML file, or the JSON of the API and of dlpd's store).
inline constexpr size_t kMaxSpecBytes = 1 << 20;
// A YAML document with its aliases expanded: nodes visited, and scalar bytes.
inline constexpr int kMaxYamlNodes = 100000;
inline constexpr size_t kMaxYamlBytes = 4 << 20;
inline constexpr int kMaxYamlDepth = 64;
// A log file holds at least one whole line (contract::kMaxLogLineBytes).
inline constexpr int64_t kMinLogMaxBytes = 64 * 1024;
inline constexpr int64_t kMaxLogMaxBytes = int64_t{1} << 40;  // 1Ti
// What a replica's log file is rotated past when logs.maxBytes is unset (0):
// a job's output must not fill a shared disk by default (dlp-job(5)).
inline constexpr int64_t kDefaultLogMaxBytes = int64_t{64} << 20;  // 64Mi

// Index of `role` in kRoles, or -1.
int RoleIndex(absl::string_view role);

Problem CheckJobName(absl::string_view name);  // DNS label: "mnist-2"
Problem CheckQueueName(absl::string_view name);
Problem CheckLabelKey(absl::string_view key);  // Kubernetes: [prefix/]name
Problem CheckLabelValue(absl::string_view value);
Problem CheckEnvName(absl::string_view name);
// The number of labels.
Problem CheckLabelCount(size_t labels);
// A replica's whole environment (spec.env merged in): count and size.
Problem CheckEnv(const std::map<std::string, std::string>& env);
// A replica's command: a program, argument count and size.
Problem CheckCommand(const std::vector<std::string>& command);
Problem CheckWorkdir(absl::string_view workdir);
// A container image reference: printable ASCII without spaces, bounded.
Problem CheckImage(absl::string_view image);
// Text a spec carries to a process (arguments, values, paths): valid UTF-8
// without NUL, which execve and the C strings below it would cut short.
Problem CheckText(absl::string_view text);
Problem CheckCount(absl::string_view role, int64_t count);
Problem CheckTotalReplicas(int64_t total);
// replicas.ROLE.minCount against the role's count: 1 <= minCount <= count,
// and below count only for a worker (the role whose group re-forms).
Problem CheckMinCount(absl::string_view role, int64_t min_count, int64_t count);
// milli-GPUs: at most kMaxGpus, and a fraction only below one device.
Problem CheckGpuMillis(int64_t millis);
Problem CheckGpuType(absl::string_view gpu_type);
Problem CheckCpuMillis(int64_t millis);
Problem CheckMemoryBytes(int64_t bytes);
Problem CheckMaxRestarts(RestartPolicyKind policy, int64_t max_restarts);
Problem CheckBackoffSeconds(int64_t seconds);
Problem CheckDeadlineSeconds(int64_t seconds);
Problem CheckPriority(int64_t priority);
Problem CheckPreemptionGraceSeconds(int64_t seconds);  // 0..kMaxPreemptionGraceSeconds
Problem CheckLogMaxBytes(int64_t bytes);  // 0 (the default) or at least kMinLogMaxBytes
// spec.dependsOn[].job: a job id (digits) or a job name.
Problem CheckDependencyJob(absl::string_view job);
// The number of spec.dependsOn entries.
Problem CheckDependencyCount(size_t count);
// spec.successPolicy.roles: at least one role (leaving the policy out is the default).
Problem CheckSuccessRoleCount(size_t count);
// An entry of spec.successPolicy.roles: one of the job's own roles.
Problem CheckSuccessRole(absl::string_view role, const std::vector<ReplicaSpec>& replicas);

}  // namespace dlp::internal
