// A job's traces (docs/profiling.md): the per-rank files as they are
// (GET /v1/jobs/ID/traces) and what `dlp profile` makes of them, computed by
// the same library functions: the summary with the straggler
// (GET /v1/jobs/ID/profile, SummarizeTraces) and the merged Chrome trace
// (GET /v1/jobs/ID/profile/trace, MergeTraces). The web UI's timeline draws
// these, so the merge has one implementation. The files are the job's: a
// request reads at most kMaxTraceBytes of them, and no sparse file.
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "dlp/profile.h"
#include "dlp/trace_folder.h"
#include "server/api/monitor.h"

namespace dlp::server {
namespace {

// What one request reads of a job's trace files, each and together.
constexpr uint64_t kMaxTraceBytes = 64 << 20;

// The job's trace files as they are now; none before it started (no folder).
absl::StatusOr<std::vector<TraceFile>> JobTraceFiles(const ApiContext& ctx,
                                                     const httplib::Request& req) {
  absl::StatusOr<std::function<absl::StatusOr<contract::TenantFolder>()>> open =
      ctx.controller->LogFolder(req.matches[1], TenantOf(ctx, req));
  if (!open.ok()) return open.status();
  absl::StatusOr<contract::TenantFolder> folder = (*open)();
  if (absl::IsNotFound(folder.status())) return std::vector<TraceFile>{};
  if (!folder.ok()) return folder.status();
  return ReadTraceFolder(folder->fd(),
                         {.max_file_bytes = kMaxTraceBytes, .max_total_bytes = kMaxTraceBytes});
}

// SummarizeTraces and MergeTraces refuse files without events: for the API
// that is a job with nothing to show yet.
absl::Status NoEvents(const std::string& id, const absl::Status& status) {
  if (!absl::IsInvalidArgument(status)) return status;
  return absl::NotFoundError(absl::StrCat(
      "job ", id,
      " has no trace events yet (its ranks trace when DLP_TRACE_DIR or DLP_TRACE=1 is set)"));
}

void ServeTraces(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  absl::StatusOr<std::vector<TraceFile>> files = JobTraceFiles(ctx, req);
  if (!files.ok()) return SendError(res, files.status());
  nlohmann::json list = nlohmann::json::array();
  for (const TraceFile& f : *files) list.push_back({{"name", f.name}, {"content", f.content}});
  res.status = 200;
  res.set_content(nlohmann::json({{"files", list}})
                      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  "application/json");
}

void ServeProfile(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  absl::StatusOr<std::vector<TraceFile>> files = JobTraceFiles(ctx, req);
  if (!files.ok()) return SendError(res, files.status());
  absl::StatusOr<Profile> profile = SummarizeTraces(*files);
  if (!profile.ok()) return SendError(res, NoEvents(req.matches[1], profile.status()));
  res.status = 200;
  res.set_content(ProfileToJson(*profile) + "\n", "application/json");
}

void ServeMergedTrace(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  absl::StatusOr<std::vector<TraceFile>> files = JobTraceFiles(ctx, req);
  if (!files.ok()) return SendError(res, files.status());
  absl::StatusOr<std::string> merged = MergeTraces(*files);
  if (!merged.ok()) return SendError(res, NoEvents(req.matches[1], merged.status()));
  res.status = 200;
  // The file name `dlp profile --trace` would be given, for a plain download;
  // the id is a job's (LogDir found it), so it needs no quoting.
  res.set_header("Content-Disposition", absl::StrCat("attachment; filename=\"job-",
                                                     req.matches[1].str(), ".trace.json\""));
  res.set_content(*merged, "application/json");
}

}  // namespace

void InstallProfileRoutes(httplib::Server& server, const ApiContext& context) {
  const ApiContext* ctx = &context;
  server.Get(
      R"(/v1/jobs/([^/]+)/traces)",
      [ctx](const httplib::Request& req, httplib::Response& res) { ServeTraces(*ctx, req, res); });
  server.Get(
      R"(/v1/jobs/([^/]+)/profile)",
      [ctx](const httplib::Request& req, httplib::Response& res) { ServeProfile(*ctx, req, res); });
  server.Get(R"(/v1/jobs/([^/]+)/profile/trace)",
             [ctx](const httplib::Request& req, httplib::Response& res) {
               ServeMergedTrace(*ctx, req, res);
             });
}

}  // namespace dlp::server
