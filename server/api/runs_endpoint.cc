// GET /v1/jobs?columns=...&where=...&sort=...&offset=N&limit=N: the runs
// table (docs/api.md, "Runs"). Every job of the caller within the list's
// filters is gathered with what the query names (its sweep trial's
// parameters, its metrics' summaries from MetricSummaries), filtered and
// sorted here (RunsQuery), and one page of summaries answered with each
// column's value and the total that passed.
#include "absl/strings/str_cat.h"
#include "dlp/api_codec.h"
#include "nlohmann/json.hpp"
#include "server/api/routes.h"
#include "server/api/runs_query.h"
#include "server/http/query_params.h"

namespace dlp::server {
namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson ValueJson(const RunValue& value) {
  if (const double* d = std::get_if<double>(&value)) return *d;
  if (const std::string* s = std::get_if<std::string>(&value)) return *s;
  return nullptr;
}

// Job id -> its trial's parameters, over the caller's sweeps.
absl::StatusOr<std::map<std::string, TrialParams>> TrialParamsByJob(const ApiContext& ctx,
                                                                    const std::string& tenant) {
  std::map<std::string, TrialParams> by_job;
  if (ctx.sweeps == nullptr) return by_job;
  absl::StatusOr<std::vector<Sweep>> sweeps = ctx.sweeps->List(tenant);
  if (!sweeps.ok()) return sweeps.status();
  for (Sweep& sweep : *sweeps) {
    for (SweepTrial& trial : sweep.trials) {
      if (!trial.job.empty()) by_job[trial.job] = std::move(trial.params);
    }
  }
  return by_job;
}

}  // namespace

void ServeRuns(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res,
               const ListFilter& base) {
  RunsParams params{req.get_param_value("columns"), req.get_param_value("sort"),
                    req.get_param_value("offset"), req.get_param_value("limit"),
                    RawParams(req, "where")};
  for (const char* single : {"columns", "sort", "offset", "limit"}) {
    if (req.get_param_value_count(single) > 1) {
      return SendError(res, absl::InvalidArgumentError(
                                absl::StrCat(single, ": given more than once")));
    }
  }
  absl::StatusOr<RunsQuery> query = ParseRunsQuery(params);
  if (!query.ok()) return SendError(res, query.status());
  const std::string tenant = TenantOf(ctx, req);
  ListFilter all = base;
  all.limit = 0;
  all.before = 0;
  absl::StatusOr<std::vector<Job>> jobs = ctx.controller->List(all, tenant, /*summary=*/true);
  if (!jobs.ok()) return SendError(res, jobs.status());
  absl::StatusOr<std::map<std::string, TrialParams>> trials = TrialParamsByJob(ctx, tenant);
  if (!trials.ok()) return SendError(res, trials.status());

  const bool metrics = query->NeedsMetrics() && ctx.metric_summaries != nullptr;
  std::vector<MetricSummaryMap> summaries(metrics ? jobs->size() : 0);
  std::vector<RunFacts> rows(jobs->size());
  for (size_t i = 0; i < jobs->size(); ++i) {
    const Job& job = (*jobs)[i];
    rows[i].job = &job;
    auto trial = trials->find(job.id);
    if (trial != trials->end()) rows[i].params = &trial->second;
    if (metrics) {
      summaries[i] = ctx.metric_summaries->Of(
          job, [&] { return ctx.controller->LogFolder(job.id, tenant); });
      rows[i].metrics = &summaries[i];
    }
  }
  const std::vector<size_t> picked = SelectRuns(*query, rows);

  OrderedJson list = OrderedJson::array();
  const size_t end = std::min(picked.size(), static_cast<size_t>(query->offset + query->limit));
  for (size_t k = static_cast<size_t>(query->offset); k < end; ++k) {
    const RunFacts& row = rows[picked[k]];
    OrderedJson job = OrderedJson::parse(JobSummaryToJson(*row.job));
    if (row.params != nullptr) job["params"] = *row.params;
    OrderedJson values = OrderedJson::object();
    for (const RunColumn& column : query->columns) values[column.key] = ValueJson(ValueOf(column, row));
    job["values"] = std::move(values);
    list.push_back(std::move(job));
  }
  res.status = 200;
  // Invalid UTF-8 (a metric's odd name) is replaced rather than thrown on.
  res.set_content(OrderedJson{{"jobs", std::move(list)},
                              {"total", picked.size()},
                              {"offset", query->offset}}
                          .dump(-1, ' ', false, OrderedJson::error_handler_t::replace) +
                      "\n",
                  "application/json");
}

}  // namespace dlp::server
