// `dlp delete` (delete.cc), and the `delete` verb it shares with `dlp sweep`
// and `dlp pipeline`.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "command.h"
#include "dlp/client.h"

namespace CLI {
class App;
}

namespace dlp::cli {

// Deletes one sweep or pipeline (`force`: cancelling it first); its id.
using GroupDeleter =
    std::function<absl::StatusOr<std::string>(Client&, const std::string& id, bool force)>;

// Adds `delete ID... [--force] [-q]` under `group` (`dlp sweep`, `dlp
// pipeline`); `what` ("sweep") names one in help and output.
void AddGroupDelete(CLI::App& group, Invocation& invocation, const std::string& what,
                    GroupDeleter remove);

}  // namespace dlp::cli
