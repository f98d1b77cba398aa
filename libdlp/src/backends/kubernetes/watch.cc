#include "backends/kubernetes/watch.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"

namespace dlp::internal::k8s {
namespace {

constexpr absl::Duration kFirstPause = absl::Milliseconds(100);
constexpr absl::Duration kMaxPause = absl::Seconds(5);

std::string VersionOf(const nlohmann::json& object) {
  if (!object.is_object() || !object.contains("metadata")) return "";
  return object["metadata"].value("resourceVersion", "");
}

}  // namespace

absl::Status WatchUntil(const ApiClient& client, const ResourceType& type,
                        const WatchOptions& options, const std::function<bool()>& on_change) {
  std::string version;  // empty: list first
  absl::Duration pause = kFirstPause;
  while (true) {
    const absl::Time now = absl::Now();
    if (now >= options.deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "watching ", type.resource, " (", std::string(options.label_selector), ") timed out"));
    }
    if (version.empty()) {
      absl::StatusOr<nlohmann::json> list =
          client.List(type, options.name_space, options.label_selector);
      if (!list.ok() && !absl::IsUnavailable(list.status())) return list.status();
      if (list.ok()) {
        version = VersionOf(*list);
        if (on_change()) return absl::OkStatus();
      }
    }
    if (!version.empty()) {
      const int64_t seconds = std::max<int64_t>(
          1, absl::ToInt64Seconds(std::min(options.deadline - now, options.max_stream)));
      ApiQuery query = {{"watch", "1"},
                        {"resourceVersion", version},
                        {"allowWatchBookmarks", "true"},
                        {"timeoutSeconds", absl::StrCat(seconds)}};
      if (!options.label_selector.empty())
        query.emplace_back("labelSelector", options.label_selector);
      bool done = false, gone = false;
      absl::Status streamed = client.Stream(
          type.Path(options.name_space), query, "watch", type, options.name_space,
          absl::Seconds(seconds + 30), [&](std::string_view line) {
            nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
            if (!event.is_object()) return true;  // a partial or blank line
            const std::string kind = event.value("type", "");
            const nlohmann::json& object = event.contains("object") ? event["object"] : event;
            if (kind == "ERROR") {
              gone = object.is_object() && object.value("code", 0) == 410;
              return false;
            }
            if (std::string v = VersionOf(object); !v.empty()) version = v;
            pause = kFirstPause;
            if (kind == "BOOKMARK") return true;
            done = on_change();
            return !done;
          });
      if (done) return absl::OkStatus();
      if (gone || IsGone(streamed)) {
        version.clear();  // too old: list again
        continue;
      }
      if (streamed.ok()) {
        if (on_change()) return absl::OkStatus();
        continue;  // the server's timeout: watch again from `version`
      }
      if (!absl::IsUnavailable(streamed)) return streamed;
    }
    // Dropped or unreachable: back off, then resume from `version`.
    std::this_thread::sleep_for(
        absl::ToChronoMilliseconds(std::min(pause, options.deadline - absl::Now())));
    pause = std::min(pause * 2, kMaxPause);
  }
}

}  // namespace dlp::internal::k8s
