// GET /v1/jobs: the job list, filtered by state, labels and queue, in pages
// from the newest job back (limit=N&before=ID; docs/api.md). A full page
// carries a Link header naming the next one. fields=summary leaves out each
// job's spec (its labels stay), which is most of a listing's bytes. With
// columns, where, sort or offset it is the runs table (runs_endpoint.cc).
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "dlp/api_codec.h"
#include "dlp/codec.h"
#include "server/api/routes.h"
#include "server/http/query_params.h"

namespace dlp::server {
namespace {

constexpr int64_t kMaxPage = 1000;
constexpr int64_t kDefaultPage = 100;

absl::StatusOr<ListFilter> ParseListFilter(const httplib::Request& req) {
  ListFilter filter;
  if (req.has_param("state")) {
    filter.state = ParseJobState(req.get_param_value("state"));
    if (!filter.state) {
      return absl::InvalidArgumentError(
          absl::StrCat("state: unknown state \"", req.get_param_value("state"),
                       "\" (expected Queued, Running, Succeeded, Failed or Cancelled)"));
    }
  }
  for (const std::string& label : RawParams(req, "label")) {
    size_t eq = label.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("label: expected KEY=VALUE, got \"", label, "\""));
    }
    filter.labels[label.substr(0, eq)] = label.substr(eq + 1);
  }
  filter.queue = req.get_param_value("queue");
  absl::StatusOr<int64_t> limit =
      IntParam(req, "limit", filter.limit, 0, std::numeric_limits<decltype(filter.limit)>::max());
  if (!limit.ok()) return limit.status();
  filter.limit = static_cast<decltype(filter.limit)>(*limit);
  absl::StatusOr<int64_t> before =
      IntParam(req, "before", 0, 1, std::numeric_limits<int64_t>::max());
  if (!before.ok()) return before.status();
  if (*before > 0) {
    filter.before = *before;
    if (!req.has_param("limit")) filter.limit = kDefaultPage;
    if (filter.limit == 0 || filter.limit > kMaxPage) {
      return absl::InvalidArgumentError(
          absl::StrCat("limit: a page (with before) holds 1 to ", kMaxPage, " jobs"));
    }
  }
  return filter;
}

// The query of the next page: this one's parameters but limit and before.
std::string NextPage(const httplib::Request& req, int limit, const std::string& before) {
  std::vector<absl::string_view> kept;
  const size_t question = req.target.find('?');
  if (question != std::string::npos) {
    for (absl::string_view param :
         absl::StrSplit(absl::string_view(req.target).substr(question + 1), '&')) {
      if (!param.empty() && !absl::StartsWith(param, "limit=") &&
          !absl::StartsWith(param, "before=")) {
        kept.push_back(param);
      }
    }
  }
  return absl::StrCat("</v1/jobs?", absl::StrJoin(kept, "&"), kept.empty() ? "" : "&",
                      "limit=", limit, "&before=", before, ">; rel=\"next\"");
}

}  // namespace

void ServeJobList(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  const bool runs = req.has_param("columns") || req.has_param("where") ||
                    req.has_param("sort") || req.has_param("offset");
  if (runs && req.has_param("before")) {
    return SendError(res, absl::InvalidArgumentError(
                              "before: pages of a sorted or filtered list go by offset"));
  }
  absl::StatusOr<ListFilter> filter = ParseListFilter(req);
  if (!filter.ok()) return SendError(res, filter.status());
  if (runs) return ServeRuns(ctx, req, res, *filter);
  const std::string fields = req.get_param_value("fields");
  if (!fields.empty() && fields != "summary" && fields != "all") {
    return SendError(res, absl::InvalidArgumentError(absl::StrCat(
                              "fields: expected summary or all, got \"", fields, "\"")));
  }
  absl::StatusOr<std::vector<Job>> jobs =
      ctx.controller->List(*filter, TenantOf(ctx, req), fields == "summary");
  if (!jobs.ok()) return SendError(res, jobs.status());
  // Oldest first within a page, as without paging; the next page is older.
  if (filter->limit > 0 && jobs->size() == static_cast<size_t>(filter->limit)) {
    res.set_header("Link", NextPage(req, filter->limit, jobs->front().id));
  }
  res.status = 200;
  res.set_content((fields == "summary" ? JobSummariesToJson(*jobs) : JobsToJson(*jobs)) + "\n",
                  "application/json");
}

}  // namespace dlp::server
