#include "backends/api/api_backend.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "backends/api/dlp_run_render.h"
#include "dlp/codec.h"
#include "dlp/profile.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"

namespace dlp::internal {
namespace {

// The server holds a wait at most 60 s; ask for 30 and allow for slow answers.
constexpr absl::Duration kWaitChunk = absl::Seconds(30);
constexpr absl::Duration kWaitSlack = absl::Seconds(15);
constexpr absl::Duration kPollInstead = absl::Seconds(1);  // when dlpd refuses a wait

std::string JobPath(std::string_view id, std::string_view suffix = "") {
  return absl::StrCat("/v1/jobs/", UrlEncode(id), std::string(suffix));
}

}  // namespace

ApiBackend::ApiBackend(std::string name, std::unique_ptr<ApiConnector> connector)
    : name_(std::move(name)), connector_(std::move(connector)) {}

template <typename Call>
auto ApiBackend::WithClient(const Call& call)
    -> decltype(call(std::declval<const HttpClient&>())) {
  DLP_ASSIGN_OR_RETURN(auto client, connector_->Connect(/*refresh=*/false));
  auto result = call(*client);
  if (result.ok() || !IsConnectFailure(result.status())) return result;
  DLP_ASSIGN_OR_RETURN(client, connector_->Connect(/*refresh=*/true));
  return call(*client);
}

absl::StatusOr<std::string> ApiBackend::GetBody(const std::string& path, const Query& query) {
  return WithClient([&](const HttpClient& http) { return http.Get(path, query); });
}

absl::Status ApiBackend::StreamBody(const std::string& path, const Query& query,
                                    const ByteSink& sink) {
  // Large files arrive as fast as the network allows; the timeout bounds a stall.
  return WithClient([&](const HttpClient& http) -> absl::StatusOr<bool> {
           DLP_RETURN_IF_ERROR(http.StreamBody(path, query, sink, absl::Seconds(60)));
           return true;
         })
      .status();
}

absl::StatusOr<std::string> ApiBackend::PostBody(const std::string& path, const std::string& json) {
  return WithClient([&](const HttpClient& http) { return http.Post(path, json); });
}

absl::StatusOr<std::string> ApiBackend::DeleteBody(const std::string& path,
                                                   absl::Duration timeout) {
  return WithClient([&](const HttpClient& http) { return http.Delete(path, timeout); });
}

absl::StatusOr<std::string> ApiBackend::ForcedDeleteBody(const std::string& path, bool force) {
  if (!force) return DeleteBody(path);
  // dlpd waits up to 50 s for the cancelled jobs to end (kForcedDeleteWait).
  return DeleteBody(path + "?force=true", absl::Seconds(80));
}

absl::StatusOr<Job> ApiBackend::Submit(const JobSpec& spec) {
  const std::string body = JobSpecToJson(spec);
  DLP_ASSIGN_OR_RETURN(std::string reply, WithClient([&](const HttpClient& http) {
                         return http.Post("/v1/jobs", body);
                       }));
  return JobFromJson(reply);
}

absl::StatusOr<Job> ApiBackend::Get(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply, WithClient([&](const HttpClient& http) {
                         return http.Get(JobPath(id));
                       }));
  return JobFromJson(reply);
}

absl::StatusOr<std::vector<Job>> ApiBackend::List(const ListFilter& filter) {
  Query query;
  if (filter.state) query.emplace_back("state", std::string(JobStateName(*filter.state)));
  for (const auto& [key, value] : filter.labels) {
    query.emplace_back("label", absl::StrCat(key, "=", value));
  }
  if (!filter.queue.empty()) query.emplace_back("queue", filter.queue);
  if (filter.limit > 0) query.emplace_back("limit", absl::StrCat(filter.limit));
  DLP_ASSIGN_OR_RETURN(std::string reply, WithClient([&](const HttpClient& http) {
                         return http.Get("/v1/jobs", query);
                       }));
  return JobsFromJson(reply);
}

absl::StatusOr<Job> ApiBackend::Cancel(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply, WithClient([&](const HttpClient& http) {
                         return http.Post(JobPath(id, "/cancel"), "{}");
                       }));
  return JobFromJson(reply);
}

absl::StatusOr<Job> ApiBackend::Delete(std::string_view id, bool force) {
  DLP_ASSIGN_OR_RETURN(std::string reply, ForcedDeleteBody(JobPath(id, ""), force));
  return JobFromJson(reply);
}

absl::StatusOr<Job> ApiBackend::Wait(std::string_view id, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;  // infinite stays infinite
  while (true) {
    const absl::Duration left = std::max(deadline - absl::Now(), absl::ZeroDuration());
    const absl::Duration chunk = std::min(left, kWaitChunk);
    const int64_t seconds = static_cast<int64_t>(std::ceil(absl::ToDoubleSeconds(chunk)));
    absl::StatusOr<std::string> reply = WithClient([&](const HttpClient& http) {
      return http.Get(JobPath(id, "/wait"), {{"timeout", absl::StrCat(seconds)}},
                      absl::Seconds(seconds) + kWaitSlack);
    });
    if (absl::IsResourceExhausted(reply.status())) {
      // dlpd bounds each tenant's long polls (429): poll the job instead.
      absl::SleepFor(std::min(left, kPollInstead));
      reply = WithClient([&](const HttpClient& http) { return http.Get(JobPath(id)); });
    }
    if (!reply.ok()) return reply.status();
    DLP_ASSIGN_OR_RETURN(Job job, JobFromJson(*reply));
    if (IsTerminal(job.state) || absl::Now() >= deadline) return job;
  }
}

absl::StatusOr<LogLine> ParseNdjsonLogLine(std::string_view text) {
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return absl::InternalError(absl::StrCat("dlpd sent a log line that is not JSON: ", std::string(text)));
  }
  // json.value() throws for a field of another type: read strings by hand.
  auto field = [&json](const char* key, const char* fallback) {
    auto it = json.find(key);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
  };
  LogLine line;
  line.replica = field("replica", "");
  line.stream = field("stream", "stdout");
  line.text = field("text", "");
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, field("time", ""), &line.time, &error)) {
    line.time = absl::UnixEpoch();
  }
  return line;
}

absl::Status ApiBackend::Logs(std::string_view id, const LogOptions& options,
                              const LogSink& sink) {
  // `metrics`: the parameter's value ("" leaves it out).
  auto query_with = [&](const char* metrics) {
    Query query;
    if (!options.replica.empty()) query.emplace_back("replica", options.replica);
    if (options.follow) query.emplace_back("follow", "1");
    if (options.tail >= 0) query.emplace_back("tail", absl::StrCat(options.tail));
    if (*metrics != '\0') query.emplace_back("metrics", metrics);
    if (options.since) {
      query.emplace_back("since",
                         absl::FormatTime(absl::RFC3339_full, *options.since, absl::UTCTimeZone()));
    }
    return query;
  };
  // A followed job may be silent for hours; an unfollowed read is short.
  const absl::Duration idle = options.follow ? absl::Hours(24) : absl::Seconds(60);
  absl::Status parse_error;
  bool streamed = false;
  // `only_metrics`: keep the metric lines of what the server sends.
  auto stream_with = [&](const Query& q, bool only_metrics) {
    return WithClient([&](const HttpClient& http) -> absl::StatusOr<bool> {
      DLP_RETURN_IF_ERROR(http.StreamLines(
          JobPath(id, "/logs"), q,
          [&](std::string_view text) {
            auto line = ParseNdjsonLogLine(text);
            if (!line.ok()) {
              parse_error = line.status();
              return false;
            }
            streamed = true;
            return only_metrics && !IsMetricLine(*line) ? true : sink(*line);
          },
          idle));
      return true;
    }).status();
  };
  absl::Status done = stream_with(
      query_with(options.metrics_only ? "only" : options.metrics ? "" : "0"), false);
  // A dlpd older than metrics=only refuses it: ask for the log's metric lines.
  if (options.metrics_only && !streamed && absl::IsInvalidArgument(done)) {
    done = stream_with(query_with("1"), true);
  }
  DLP_RETURN_IF_ERROR(done);
  return parse_error;
}

absl::StatusOr<std::vector<Event>> ApiBackend::Events(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply, WithClient([&](const HttpClient& http) {
                         return http.Get(JobPath(id, "/events"));
                       }));
  return EventsFromJson(reply);
}

absl::StatusOr<JobExplanation> ApiBackend::Why(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply, WithClient([&](const HttpClient& http) {
                         return http.Get(JobPath(id, "/why"));
                       }));
  return ExplanationFromJson(reply);
}

absl::StatusOr<std::string> ApiBackend::Render(const JobSpec& spec) {
  return RenderDlpRun(spec);
}

}  // namespace dlp::internal
