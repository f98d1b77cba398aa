// GET /v1/jobs/ID/logs: the replicas' log lines as chunked NDJSON. With
// follow=1 the stream polls the files for appended lines and ends once the job
// is terminal and every line was sent; metrics=0 leaves out metric lines,
// metrics=only keeps only them, read from the replicas' metrics files.
// A follow holds a worker thread, so it takes a LongRequests slot, writes a
// blank line (NDJSON readers skip it) after kHeartbeat of silence, and ends as
// soon as the client is gone: a hung-up socket fails is_writable() at once,
// a vanished one fails the heartbeat's write.
// The files are read a chunk at a time (LogReader), so a response of any
// size holds a chunk of each file; a request that does not follow reads at
// most kMaxBytesPerRequest, a follow as much as the job writes while it runs.
#include <cctype>
#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/api/routes.h"
#include "server/http/query_params.h"
#include "server/logs/log_reader.h"

namespace dlp::server {
namespace {

constexpr int64_t kMaxTail = 1000 * 1000;
constexpr uint64_t kMaxBytesPerRequest = uint64_t{1} << 30;
constexpr auto kFollowPoll = std::chrono::milliseconds(100);
constexpr absl::Duration kHeartbeat = absl::Seconds(2);

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
  LongRequests::Slot slot;  // follows only
  absl::Time last_write = absl::Now();
};

}  // namespace

void ServeLogs(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  const std::string tenant = TenantOf(ctx, req);
  absl::StatusOr<LogFolderOpener> folder = ctx.controller->LogFolder(id, tenant);
  if (!folder.ok()) return SendError(res, folder.status());
  LogReaderOptions options;
  options.folder = std::move(*folder);
  options.replica = req.get_param_value("replica");
  if (!options.replica.empty() && !ValidReplicaName(options.replica)) {
    return SendError(res, absl::InvalidArgumentError(
                              absl::StrCat("replica: not a replica name: \"", options.replica, "\"")));
  }
  absl::StatusOr<int64_t> tail = IntParam(req, "tail", -1, -1, kMaxTail);
  if (!tail.ok()) return SendError(res, tail.status());
  options.tail = *tail;
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
  if (req.get_param_value("metrics") == "only") {
    options.metrics_only = true;
  } else {
    absl::StatusOr<bool> metrics = BoolParam(req, "metrics", true);
    if (!metrics.ok()) return SendError(res, metrics.status());
    options.metrics = *metrics;
  }
  absl::StatusOr<bool> follow = BoolParam(req, "follow", false);
  if (!follow.ok()) return SendError(res, follow.status());
  if (!*follow) options.max_bytes = kMaxBytesPerRequest;
  LongRequests::Slot slot;
  if (*follow) {
    absl::StatusOr<LongRequests::Slot> acquired = ctx.long_requests->Acquire(tenant, "log follow");
    if (!acquired.ok()) return SendError(res, acquired.status());
    slot = std::move(*acquired);
  }
  auto state = std::make_shared<FollowState>(
      FollowState{LogReader(std::move(options)), id, tenant, *follow, std::move(slot)});
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
        entries.clear();
        const bool caught_up = state->reader.caught_up();
        const bool finished = (ended || !state->follow) && caught_up;
        if (chunk.empty() && !finished && absl::Now() - state->last_write >= kHeartbeat) {
          chunk.push_back('\n');  // (not = "\n": a GCC 12 -Wrestrict false alarm)
        }
        if (!chunk.empty()) {
          if (!sink.write(chunk.data(), chunk.size())) return false;
          state->last_write = absl::Now();
        }
        if (finished) {
          sink.done();
          return true;
        }
        if (chunk.empty() && caught_up) {
          if (!sink.is_writable()) return false;  // the client hung up
          std::this_thread::sleep_for(kFollowPoll);
        }
        return true;
      });
}

}  // namespace dlp::server
