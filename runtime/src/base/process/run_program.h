// Running a program to its end with an argv (no shell), feeding it stdin and
// collecting its output: the Slurm command-line tools.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp::base {

struct ProgramResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
};

// NotFound when argv[0] cannot be executed (not installed); DeadlineExceeded
// (after killing it) when it runs longer than `timeout`. A non-zero exit is not
// an error here: the caller reads exit_code and err.
absl::StatusOr<ProgramResult> RunProgram(const std::vector<std::string>& argv,
                                         const std::string& stdin_data = "",
                                         absl::Duration timeout = absl::Seconds(60));

}  // namespace dlp::base
