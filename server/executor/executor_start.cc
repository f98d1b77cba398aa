// Starting a job: its folders, the group file dlp-run reads, its GPUs, its
// cgroup and limits, then dlp-run itself, as the job's account where it has one.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/files/atomic_write.h"
#include "contract/dlp_run.h"
#include "contract/env_names.h"
#include "contract/group.h"
#include "dlp/job_group.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "server/executor/continue_restarts.h"
#include "server/executor/executor.h"
#include "server/executor/gpu_assignment.h"
#include "server/executor/gpu_device_access.h"
#include "server/executor/process.h"
#include "server/executor/tenant_defaults.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/resources.h"

namespace dlp::server {

absl::Status Executor::Start(JobRecord& record, const std::optional<UnixAccount>& run_as,
                             std::vector<Event>& events) {
  const std::string& id = record.job.id;
  const contract::JobFolder folder = Folder(id);
  // The output folder (DLP_OUTPUT_DIR) stays with the job's folder.
  for (const std::string& dir : {LogDir(id), folder.OutputDir()}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  }
  chmod(JobDir(id).c_str(), 0700);
  if (options_.dlp_run.empty()) {
    DLP_ASSIGN_OR_RETURN(options_.dlp_run, contract::FindDlpRun());
  }
  // An elastic job runs its workers at its size (elastic.h); every size
  // change re-forms the group, counted in DLP_RESIZE_COUNT.
  const JobSpec spec = SpecAtSize(record.job.spec, record.job.size);
  DLP_ASSIGN_OR_RETURN(contract::Group group,
                       contract::ParseGroupJson(JobGroupJson(spec), "the job's group"));
  if (record.job.size > 0) {
    for (contract::Role& role : group.roles) {
      role.env[contract::env::kResizeCount] = absl::StrCat(record.job.resizes);
    }
  }
  // After a preemption the ranks see DLP_RESTART_COUNT raised (they resume
  // from their checkpoint); only failures use up restartPolicy.maxRestarts.
  ContinueRestarts(record.job, spec, group);
  // On a machine with GPUs every replica gets exactly its devices (none: "").
  const bool placed = options_.gpus || !record.placement.empty();
  const std::string gpus_started =
      placed ? AssignJobDevices(record, options_.devices, group) : "";
  // Rewritten before every start and read by dlp-run from the page cache: a
  // crash of the machine loses the runner with it, so no fsync is needed.
  DLP_RETURN_IF_ERROR(
      contract::WriteGroupFile(folder.GroupFile(), group, base::FileSync::kVolatile));
  // dlp-run waits as long as dlpd does before its SIGKILL: a preempted job
  // gets its own grace period.
  const absl::Duration grace =
      std::max(options_.grace_period, absl::Seconds(spec.preemption.grace_period_seconds));
  contract::DlpRunCommand command = contract::ExecutorDlpRunCommand(
      options_.dlp_run, folder, id, record.job.name, grace);
  SpawnOptions spawn;
  spawn.argv = std::move(command.argv);
  spawn.extra_env = std::move(command.env);
  spawn.output_path = RunnerOutput(id);
  if (run_as) {
    // dlp-run writes the logs, status and traces as the account.
    for (const std::string& path :
         {JobDir(id), LogDir(id), folder.OutputDir(), folder.GroupFile()}) {
      DLP_RETURN_IF_ERROR(GiveToAccount(path, *run_as));
    }
    spawn.run_as = run_as;
    spawn.inherit_environment = false;
    spawn.extra_env.merge(AccountEnvironment(*run_as));
  }
  const absl::Time now = absl::Now();
  if (options_.cgroups) {
    JobSpec limited = record.job.spec;
    if (run_as) ApplyTenantDefaults(tenant_replica_memory_, limited);
    const ResourceVector demand = DemandOf(limited);
    int replicas = 0;
    for (const ReplicaSpec& r : record.job.spec.replicas) replicas += r.count;
    const CgroupLimits limits = JobCgroupLimits(demand.memory_bytes, demand.cpu_millis, replicas);
    absl::StatusOr<std::vector<std::string>> procs = options_.cgroups->Create(id, limits);
    if (procs.ok()) {
      spawn.cgroup_procs = std::move(*procs);
      std::string gpu_devices;
      if (placed) {
        const std::vector<int> minors = PlacedGpuMinors(record.placement, options_.devices);
        absl::Status restricted = options_.cgroups->RestrictGpus(id, minors);
        if (restricted.ok()) {
          gpu_devices = absl::StrCat(", ", DescribeGpuNodes(minors));
        } else {
          events.push_back({now, "GpuDevicesNotRestricted",
                            absl::StrCat(restricted.message(),
                                         ": the job's processes can open every GPU")});
        }
      }
      events.push_back(
          {now, "Limits",
           absl::StrCat(limits.memory_bytes > 0
                            ? absl::StrCat("memory ", FormatMemoryBytes(limits.memory_bytes))
                            : "no memory limit",
                        ", ",
                        limits.cpu_millis > 0 ? DescribeCpus(limits.cpu_millis) : "no CPU quota",
                        ", ", limits.pids, " processes", gpu_devices, " (cgroup ",
                        absl::StrJoin(options_.cgroups->Paths(id), ", "), ")")});
    } else {
      RemoveCgroup(id);
      events.push_back({now, "LimitsNotEnforced",
                        absl::StrCat("cannot set up the job's cgroup (", procs.status().message(),
                                     "): memory, CPU and process limits are not enforced")});
    }
  } else {
    events.push_back({now, "LimitsNotEnforced",
                      "dlpd has no writable cgroup: memory, CPU and process limits are not "
                      "enforced"});
  }
  absl::StatusOr<pid_t> spawned = SpawnDetached(spawn);
  if (!spawned.ok()) {
    if (options_.cgroups) RemoveCgroup(id);
    return spawned.status();
  }
  const pid_t pid = *spawned;
  children_[pid] = std::nullopt;
  if (exits_) exits_->Watch(pid);
  record.runner_pid = pid;
  record.runner_start_time = ProcessStartTime(pid).value_or(0);
  record.job.state = JobState::kRunning;
  record.job.reason = "";
  record.job.started = absl::Now();
  events.push_back({*record.job.started, "Started",
                    absl::StrCat("started dlp-run (pid ", pid, ")",
                                 run_as ? absl::StrCat(" as ", run_as->name) : "", gpus_started,
                                 record.job.gpu_sharing.empty() ? "" : "; GPU sharing: ",
                                 record.job.gpu_sharing)});
  return absl::OkStatus();
}

}  // namespace dlp::server
