// What dlpd's executor runs for a spec (docs/runtime-contract.md): the dlp-run
// command line and its group file. Used by `dlp render` for local and remote.
#pragma once

#include <string>

#include "dlp/job.h"

namespace dlp::internal {

// The group file dlp-run reads (--group), as pretty JSON.
std::string GroupJson(const JobSpec& spec);

// "# dlp-run command line\n... \n# group.json\n{...}\n", for job id "ID".
std::string RenderDlpRun(const JobSpec& spec);

}  // namespace dlp::internal
