// Logs of every pod of a job, prefixed by replica. Without -f each pod's log is
// read once and the lines are merged by their kubelet timestamps. With -f a
// watch on the job's pods starts one follower per pod as it starts (no limit
// on their number, unlike kubectl's 5), and each follower reconnects after a
// drop from the last timestamp it saw, until its pod ends and the job is done.
// The trace lines dlp-run relays into the logs (contract/trace_relay.h) are
// hidden from them and make the job's trace files.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/kubernetes/json_fields.h"
#include "backends/kubernetes/kubernetes_backend.h"
#include "backends/kubernetes/watch.h"
#include "contract/trace_relay.h"
#include "dlp/profile.h"
#include "dlp/status.h"

namespace dlp::internal::k8s {
namespace {

const ResourceType kPodLogs{"", "v1", "pods/log", "Pod"};
constexpr absl::Duration kFollowIdle = absl::Minutes(5);
// How often a follow re-checks the job when no pod changes (JobSet's
// Completed condition comes after its pods' last change).
constexpr absl::Duration kRecheck = absl::Seconds(5);

// "2026-12-01T16:00:00.123456789Z text" (timestamps=true).
LogLine ParseLine(std::string_view raw, const std::string& replica) {
  LogLine line{replica, "stdout", absl::Now(), std::string(raw)};
  const size_t space = raw.find(' ');
  std::string error;
  if (space != std::string_view::npos &&
      absl::ParseTime(absl::RFC3339_full, std::string(raw.substr(0, space)), &line.time, &error)) {
    line.text = std::string(raw.substr(space + 1));
  }
  if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
  return line;
}

// Lines `dlp logs` does not show: relayed trace lines always, metric lines
// unless asked for.
bool Hidden(const LogLine& line, const LogOptions& options) {
  return contract::IsTraceRelayLine(line.text) ||
         !MetricFilterKeeps(line, options.metrics, options.metrics_only);
}

ApiQuery BaseQuery(const nlohmann::json& pod, const LogOptions& options) {
  ApiQuery query = {{"timestamps", "true"}};
  const nlohmann::json& containers = At(pod, "spec/containers");
  if (containers.is_array() && containers.size() > 1) {
    std::string name = Str(containers[0], "name");
    for (const nlohmann::json& c : containers) {
      if (Str(c, "name") == "dlp") name = "dlp";
    }
    query.emplace_back("container", name);
  }
  if (options.since) {
    query.emplace_back("sinceTime",
                       absl::FormatTime(absl::RFC3339_sec, *options.since, absl::UTCTimeZone()));
  }
  return query;
}

bool Started(const nlohmann::json& pod) { return Str(pod, "status/phase") != "Pending"; }
bool Ended(const nlohmann::json& pod) {
  const std::string phase = Str(pod, "status/phase");
  return phase == "Succeeded" || phase == "Failed";
}

std::vector<nlohmann::json> PodsOf(const ApiClient& api, std::string_view name_space,
                                   std::string_view id, absl::Status& error) {
  absl::StatusOr<nlohmann::json> list = api.List(kPods, name_space, PodSelector(id));
  if (!list.ok()) {
    error = list.status();
    return {};
  }
  const nlohmann::json& items = At(*list, "items");
  return items.is_array() ? items.get<std::vector<nlohmann::json>>()
                          : std::vector<nlohmann::json>{};
}

// Serialises the sink across followers and remembers a stop.
class SharedSink {
 public:
  SharedSink(const LogSink& sink, const LogOptions& options) : sink_(sink), options_(options) {}
  bool Emit(const LogLine& line) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return false;
    if (Hidden(line, options_)) return true;
    if (!sink_(line)) stopped_ = true;
    return !stopped_;
  }
  bool stopped() {
    std::lock_guard<std::mutex> lock(mu_);
    return stopped_;
  }

 private:
  const LogSink& sink_;
  const LogOptions options_;
  std::mutex mu_;
  bool stopped_ = false;
};

// One pod's whole log as it is now; InvalidArgument while its container has
// not started.
absl::StatusOr<std::vector<LogLine>> ReadPodLines(const ApiClient& api,
                                                  std::string_view name_space,
                                                  const nlohmann::json& pod,
                                                  const ApiQuery& query) {
  DLP_ASSIGN_OR_RETURN(std::string text,
                       api.PodLog(name_space, Str(pod, "metadata/name"), query));
  const std::string replica = ReplicaOf(pod).name;
  std::vector<LogLine> lines;
  for (absl::string_view raw : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    lines.push_back(ParseLine(std::string_view(raw.data(), raw.size()), replica));
  }
  return lines;
}

// Streams one pod's log until the pod ends (or is deleted) or the sink stops.
void FollowPod(const ApiClient& api, std::string_view name_space, const nlohmann::json& pod,
               const LogOptions& options, SharedSink& sink) {
  const std::string name = Str(pod, "metadata/name");
  const std::string replica = ReplicaOf(pod).name;
  std::optional<absl::Time> last;
  absl::Duration pause = absl::Milliseconds(200);
  while (!sink.stopped()) {
    ApiQuery query = BaseQuery(pod, options);
    query.emplace_back("follow", "true");
    if (last) {
      // sinceTime has whole seconds: lines up to `last` come again and are skipped.
      query.emplace_back(
          "sinceTime",
          absl::FormatTime(absl::RFC3339_sec, absl::FromUnixSeconds(absl::ToUnixSeconds(*last)),
                           absl::UTCTimeZone()));
    } else if (options.tail >= 0) {
      query.emplace_back("tailLines", absl::StrCat(options.tail));
    }
    const absl::Status streamed =
        api.Stream(kPods.Path(name_space, name) + "/log", query, "get", kPodLogs, name_space,
                   kFollowIdle, [&](std::string_view raw) {
                     LogLine line = ParseLine(raw, replica);
                     if (last && line.time <= *last) return true;
                     last = line.time;
                     return sink.Emit(line);
                   });
    if (sink.stopped()) return;
    absl::StatusOr<nlohmann::json> now = api.Get(kPods, name_space, name);
    if (!now.ok() || Ended(*now)) return;  // gone or done: its log is complete
    if (streamed.ok()) pause = absl::Milliseconds(200);
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(pause));  // back-off
    pause = std::min(pause * 2, absl::Seconds(5));
  }
}

}  // namespace

absl::Status KubernetesBackend::Logs(std::string_view id, const LogOptions& options,
                                     const LogSink& sink) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, Api());
  DLP_RETURN_IF_ERROR(Read(*api, id).status());  // NotFound for an unknown job
  auto wanted = [&](const nlohmann::json& pod) {
    return options.replica.empty() || ReplicaOf(pod).name == options.replica;
  };
  absl::Status error;
  if (!options.follow) {
    std::vector<LogLine> lines;
    for (const nlohmann::json& pod : PodsOf(*api, Namespace(), id, error)) {
      if (!wanted(pod) || !Started(pod)) continue;
      ApiQuery query = BaseQuery(pod, options);
      if (options.tail >= 0 && options.metrics && !options.metrics_only) {
        query.emplace_back("tailLines", absl::StrCat(options.tail));
      }
      absl::StatusOr<std::vector<LogLine>> read = ReadPodLines(*api, Namespace(), pod, query);
      if (absl::IsInvalidArgument(read.status())) continue;  // its container has not started
      DLP_RETURN_IF_ERROR(read.status());
      std::vector<LogLine> own;
      for (LogLine& line : *read) {
        if (!Hidden(line, options)) own.push_back(std::move(line));
      }
      if (options.tail >= 0 && own.size() > static_cast<size_t>(options.tail)) {
        own.erase(own.begin(), own.end() - options.tail);
      }
      lines.insert(lines.end(), own.begin(), own.end());
    }
    DLP_RETURN_IF_ERROR(error);
    std::stable_sort(lines.begin(), lines.end(),
                     [](const LogLine& a, const LogLine& b) { return a.time < b.time; });
    for (const LogLine& line : lines) {
      if (!sink(line)) break;
    }
    return absl::OkStatus();
  }

  SharedSink shared(sink, options);
  std::set<std::string> followed;
  std::vector<std::thread> followers;
  WatchOptions watch;
  watch.name_space = Namespace();
  const std::string selector = PodSelector(id);
  watch.label_selector = selector;
  watch.max_stream = kRecheck;
  absl::Status watched = WatchUntil(*api, kPods, watch, [&] {
    for (const nlohmann::json& pod : PodsOf(*api, Namespace(), id, error)) {
      if (!wanted(pod) || !Started(pod)) continue;
      if (!followed.insert(Str(pod, "metadata/name")).second) continue;
      followers.emplace_back([this, api, pod, &options, &shared] {
        FollowPod(*api, Namespace(), pod, options, shared);
      });
    }
    absl::StatusOr<Job> job = Get(id);
    if (!job.ok()) error = job.status();
    return !error.ok() || shared.stopped() || IsTerminal(job->state);
  });
  for (std::thread& follower : followers) follower.join();
  DLP_RETURN_IF_ERROR(error);
  return watched;
}

// Every pod's relayed trace lines, file by file. A pod that a restart
// replaced took its log, and so its lines, with it.
absl::StatusOr<std::vector<TraceFile>> KubernetesBackend::TraceFiles(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, Api());
  DLP_RETURN_IF_ERROR(Read(*api, id).status());  // NotFound for an unknown job
  absl::Status error;
  std::map<std::string, std::string> files;
  for (const nlohmann::json& pod : PodsOf(*api, Namespace(), id, error)) {
    if (!Started(pod)) continue;
    absl::StatusOr<std::vector<LogLine>> read =
        ReadPodLines(*api, Namespace(), pod, BaseQuery(pod, LogOptions{}));
    if (absl::IsInvalidArgument(read.status())) continue;
    DLP_RETURN_IF_ERROR(read.status());
    for (const LogLine& line : *read) {
      if (auto relayed = contract::ParseTraceRelayLine(line.text)) {
        absl::StrAppend(&files[relayed->file], relayed->line, "\n");
      }
    }
  }
  DLP_RETURN_IF_ERROR(error);
  std::vector<TraceFile> traces;
  for (auto& [name, content] : files) traces.push_back({name, std::move(content)});
  return traces;
}

}  // namespace dlp::internal::k8s
