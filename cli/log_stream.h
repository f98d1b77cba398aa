// Printing log lines: one replica plain, several interleaved with a
// "[worker-0] " prefix (a color per replica on a terminal).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "command.h"
#include "dlp/client.h"

namespace dlp::cli {

struct LogPrintFlags {
  bool prefix = true;      // "[worker-0] " before each line
  std::string stage;       // a pipeline's job: "[train/worker-0] "
  bool timestamps = false; // RFC 3339 time before each line
};

// Streams the job's logs to stdout until the backend ends the stream (with
// options.follow: once the job is terminal and every line was sent).
// Ctrl-C exits the process with 130.
absl::Status StreamLogs(Client& client, const std::string& id, const LogOptions& options,
                        const LogPrintFlags& flags, const GlobalFlags& globals);

}  // namespace dlp::cli
