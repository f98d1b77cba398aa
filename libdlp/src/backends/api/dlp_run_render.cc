#include "backends/api/dlp_run_render.h"

#include "absl/strings/str_cat.h"
#include "base/numeric/checked_math.h"
#include "contract/dlp_run.h"
#include "job/job_group.h"

namespace dlp::internal {

std::string RenderDlpRun(const JobSpec& spec) {
  const contract::JobFolder folder{"STATE/jobs/ID"};
  int64_t gpus = 0;
  for (const ReplicaSpec& replica : spec.replicas) {
    gpus = base::SaturatingAdd(
        gpus, base::SaturatingMul<int64_t>(replica.count, replica.resources.gpu_millis));
  }
  // dlpd's defaults; `dlpd --grace-period` changes the grace period.
  const contract::DlpRunCommand command =
      contract::ExecutorDlpRunCommand("dlp-run", folder, "ID", spec.name, absl::Seconds(10));
  const std::string placed =
      gpus > 0 ? "# GPUs: dlpd places each replica at start and adds its devices (its "
                 "CUDA_VISIBLE_DEVICES) to its role's \"devices\" here\n"
               : "";
  std::string elastic;
  for (const ReplicaSpec& r : spec.replicas) {
    if (!IsElastic(r)) continue;
    elastic = absl::StrCat("# ", r.role, " is elastic: dlpd starts it with as many of ",
                           MinCountOf(r), " to ", r.count, " replicas as fit, grows and shrinks ",
                           "it; each change of size\n# re-forms the group (this file then lists ",
                           "the replicas it runs, DLP_RESIZE_COUNT one higher). At ", r.count,
                           ":\n");
  }
  return absl::StrCat("# dlp-run command line (ID: the job id, STATE: dlpd's state folder)\n",
                      command.ShellLine(), "\n# ", folder.GroupFile(), "\n", placed, elastic,
                      contract::GroupToJson(JobGroup(spec)));
}

}  // namespace dlp::internal
