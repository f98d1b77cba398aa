// The runs table's query (GET /v1/jobs with columns, where, sort or offset;
// docs/api.md "Runs"): columns named `label.KEY`, `param.NAME` (a sweep
// trial's parameter) and `metric.NAME` with an optional `:last`, `:min` or
// `:max`; conditions `COLUMN OP VALUE` (OP one of = != < <= > >=); a sort on a
// column or on id, name, state, queue, created. Pure: parsing is bounded and
// strict (InvalidArgument naming the parameter), and selecting works on the
// facts the endpoint gathered for each job.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "dlp/job.h"

namespace dlp::server {

inline constexpr int kMaxRunColumns = 32;
inline constexpr int kMaxRunConditions = 16;
inline constexpr size_t kMaxRunKeyBytes = 200;
inline constexpr size_t kMaxRunValueBytes = 256;
inline constexpr int64_t kMaxRunOffset = 1'000'000;

enum class MetricStat { kLast, kMin, kMax };

struct RunColumn {
  enum class Kind { kLabel, kParam, kMetric, kBuiltin };
  Kind kind = Kind::kBuiltin;
  std::string name;  // the label key, parameter, metric or built-in field
  MetricStat stat = MetricStat::kLast;
  std::string key;  // as written: "metric.loss:min"
};

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

struct RunCondition {
  RunColumn column;
  CompareOp op = CompareOp::kEq;
  std::string value;
  std::optional<double> number;  // the value, when it is a number
};

struct RunsQuery {
  std::vector<RunColumn> columns;
  std::vector<RunCondition> where;
  RunColumn sort;  // default: id
  bool descending = true;  // default: newest first
  int64_t offset = 0;
  int limit = 100;
  bool NeedsMetrics() const;
  bool NeedsParams() const;
};

// One metric of a job as its metrics files have it: the rank-0 replica's
// values (a metric only others report, the lowest rank's that does).
struct MetricSummary {
  double last = 0, min = 0, max = 0;
  int64_t step = -1;  // of the last value
  int64_t count = 0;
};

// What a row of the runs table is selected and sorted on.
struct RunFacts {
  const Job* job = nullptr;  // labels from job->spec.labels
  const std::map<std::string, std::string>* params = nullptr;  // null: not a trial
  const std::map<std::string, MetricSummary>* metrics = nullptr;
};

// A cell: none, a number or text.
using RunValue = std::variant<std::monostate, double, std::string>;

absl::StatusOr<RunColumn> ParseRunColumn(absl::string_view text);
absl::StatusOr<RunCondition> ParseRunCondition(absl::string_view text);

// From the request's `columns` (comma-separated), every `where`, `sort`
// ("-KEY" for descending), `offset` and `limit` (1 to 1000). Values arrive
// percent-decoded.
struct RunsParams {
  std::string columns, sort, offset, limit;
  std::vector<std::string> where;
};
absl::StatusOr<RunsQuery> ParseRunsQuery(const RunsParams& params);

RunValue ValueOf(const RunColumn& column, const RunFacts& facts);

// The indices into `rows` that pass every condition, in the query's order
// (missing values last either way, then newest first), before offset/limit.
std::vector<size_t> SelectRuns(const RunsQuery& query, const std::vector<RunFacts>& rows);

}  // namespace dlp::server
