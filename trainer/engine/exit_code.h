// The exit status of a trainer's program for the Status its run ended with
// (examples/fashion-mnist/README.md, "Output"): 0; 2 for what the user fixes
// (flags, data, the device, a checkpoint of another run); 3 for a stop on
// request (SIGUSR1, after its checkpoint: run again to go on); 1 otherwise.
#pragma once

#include "dlp/status.h"

namespace dlp::fmnist {

int ExitCodeFor(const absl::Status& status);

}  // namespace dlp::fmnist
