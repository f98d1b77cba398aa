// Watching objects as client-go's reflector does: list, then watch from the
// list's resourceVersion; a dropped stream resumes from the last version seen
// and a 410 Gone (version too old) lists again.
#pragma once

#include <functional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "backends/kubernetes/api_client.h"

namespace dlp::internal::k8s {

struct WatchOptions {
  std::string_view name_space;
  std::string_view label_selector;
  absl::Time deadline = absl::InfiniteFuture();
  // The server ends each watch after this long (timeoutSeconds); `on_change`
  // then runs again, so a caller also sees what the watched type does not show.
  absl::Duration max_stream = absl::Minutes(5);
};

// Calls `on_change` after the first list, after each event, and each time a
// stream ends; it returns true when the caller has what it waited for (then
// OK). DeadlineExceeded at the deadline; an error that is not a dropped
// connection or 410 (e.g. 403) is returned as is.
absl::Status WatchUntil(const ApiClient& client, const ResourceType& type,
                        const WatchOptions& options, const std::function<bool()>& on_change);

}  // namespace dlp::internal::k8s
