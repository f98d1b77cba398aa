// GET /v1/jobs/ID/logs: the replicas' log lines as chunked NDJSON. With
// follow=1 the stream polls the files for appended lines and ends once the job
// is terminal and every line was sent; metrics=0 leaves out metric lines.
#include <cctype>
#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/api/log_reader.h"
#include "server/api/routes.h"

namespace dlp::server {
namespace {

constexpr auto kFollowPoll = std::chrono::milliseconds(100);

bool ValidReplicaName(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

struct FollowState {
  LogReader reader;
  std::string id, tenant;
  bool follow = false;
};

}  // namespace

void ServeLogs(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  const std::string tenant = TenantOf(ctx, req);
  absl::StatusOr<std::string> dir = ctx.controller->LogDir(id, tenant);
  if (!dir.ok()) return SendError(res, dir.status());
  LogReaderOptions options;
  options.dir = *dir;
  options.replica = req.get_param_value("replica");
  if (!options.replica.empty() && !ValidReplicaName(options.replica)) {
    return SendError(res, absl::InvalidArgumentError(
                              absl::StrCat("replica: not a replica name: \"", options.replica, "\"")));
  }
  if (req.has_param("tail") &&
      (!absl::SimpleAtoi(req.get_param_value("tail"), &options.tail) || options.tail < -1)) {
    return SendError(res, absl::InvalidArgumentError("tail: expected a number of lines"));
  }
  if (req.has_param("since")) {
    absl::Time since;
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, req.get_param_value("since"), &since, &err)) {
      return SendError(res, absl::InvalidArgumentError(absl::StrCat(
                                "since: expected an RFC 3339 time such as "
                                "2026-11-30T12:00:00Z: ", err)));
    }
    options.since = since;
  }
  const std::string metrics = req.get_param_value("metrics");
  options.metrics = metrics != "0" && metrics != "false";
  const std::string follow = req.get_param_value("follow");
  auto state = std::make_shared<FollowState>(FollowState{
      LogReader(std::move(options)), id, tenant, follow == "1" || follow == "true"});
  Controller* controller = ctx.controller;
  res.status = 200;
  res.set_chunked_content_provider(
      "application/x-ndjson", [state, controller](size_t, httplib::DataSink& sink) {
        absl::StatusOr<Job> job = controller->Get(state->id, state->tenant);
        const bool ended =
            !job.ok() || IsTerminal(job->state) || controller->stopping();
        std::vector<LogEntry> entries = state->reader.ReadNew(ended || !state->follow);
        std::string chunk;
        for (const LogEntry& e : entries) chunk += LogEntryToNdjson(e);
        if (!chunk.empty() && !sink.write(chunk.data(), chunk.size())) return false;
        if (ended || !state->follow) {
          sink.done();
          return true;
        }
        if (entries.empty()) std::this_thread::sleep_for(kFollowPoll);
        return true;
      });
}

}  // namespace dlp::server
