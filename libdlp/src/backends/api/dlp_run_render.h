// What dlpd's executor runs for a spec (docs/runtime-contract.md): the dlp-run
// command line and its group file, produced by the same functions the executor
// calls. Used by `dlp render` for local and remote.
#pragma once

#include <string>

#include "dlp/job.h"

namespace dlp::internal {

// "# dlp-run command line ...\n<line>\n# STATE/jobs/ID/group.json\n{...}\n", for
// job id "ID" in dlpd's state folder "STATE".
std::string RenderDlpRun(const JobSpec& spec);

}  // namespace dlp::internal
