#include "server/api/runs_query.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dlp::server {
namespace {

constexpr int kMaxRunsPage = 1000;
constexpr const char* kBuiltins[] = {"id", "name", "state", "queue", "created"};

bool NameCharsOk(absl::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
           c == '.' || c == '/';
  });
}

std::optional<double> Number(absl::string_view text) {
  double d = 0;
  if (text.empty() || !absl::SimpleAtod(text, &d) || !std::isfinite(d)) return std::nullopt;
  // SimpleAtod skips spaces; a cell or condition with them is text.
  if (absl::StripAsciiWhitespace(text).size() != text.size()) return std::nullopt;
  return d;
}

// -1, 0, 1; numbers as numbers, text as text, a number before text.
int Compare(const RunValue& a, const RunValue& b) {
  const double* x = std::get_if<double>(&a);
  const double* y = std::get_if<double>(&b);
  if (x && y) return *x < *y ? -1 : *x > *y ? 1 : 0;
  if (x || y) return x ? -1 : 1;
  const std::string& s = std::get<std::string>(a);
  const std::string& t = std::get<std::string>(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

bool Holds(const RunCondition& c, const RunValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return false;
  RunValue want = c.value;
  if (c.number && std::holds_alternative<double>(v)) want = *c.number;
  const int cmp = Compare(v, want);
  switch (c.op) {
    case CompareOp::kEq: return cmp == 0;
    case CompareOp::kNe: return cmp != 0;
    case CompareOp::kLt: return cmp < 0;
    case CompareOp::kLe: return cmp <= 0;
    case CompareOp::kGt: return cmp > 0;
    case CompareOp::kGe: return cmp >= 0;
  }
  return false;
}

// Text that reads as a number compares as one (a parameter "0.01", a label "3").
RunValue Cell(const std::string& text) {
  if (std::optional<double> d = Number(text)) return *d;
  return text;
}

}  // namespace

bool RunsQuery::NeedsMetrics() const {
  auto metric = [](const RunColumn& c) { return c.kind == RunColumn::Kind::kMetric; };
  return metric(sort) || std::any_of(columns.begin(), columns.end(), metric) ||
         std::any_of(where.begin(), where.end(),
                     [&](const RunCondition& c) { return metric(c.column); });
}

bool RunsQuery::NeedsParams() const {
  auto param = [](const RunColumn& c) { return c.kind == RunColumn::Kind::kParam; };
  return param(sort) || std::any_of(columns.begin(), columns.end(), param) ||
         std::any_of(where.begin(), where.end(),
                     [&](const RunCondition& c) { return param(c.column); });
}

absl::StatusOr<RunColumn> ParseRunColumn(absl::string_view text) {
  RunColumn column;
  column.key = std::string(text);
  if (text.size() > kMaxRunKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("column names are at most ", kMaxRunKeyBytes, " bytes"));
  }
  for (const char* builtin : kBuiltins) {
    if (text == builtin) {
      column.name = builtin;
      return column;
    }
  }
  absl::string_view name = text;
  if (absl::ConsumePrefix(&name, "label.")) {
    column.kind = RunColumn::Kind::kLabel;
  } else if (absl::ConsumePrefix(&name, "param.")) {
    column.kind = RunColumn::Kind::kParam;
  } else if (absl::ConsumePrefix(&name, "metric.")) {
    column.kind = RunColumn::Kind::kMetric;
    if (absl::ConsumeSuffix(&name, ":min")) column.stat = MetricStat::kMin;
    else if (absl::ConsumeSuffix(&name, ":max")) column.stat = MetricStat::kMax;
    else absl::ConsumeSuffix(&name, ":last");
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown column \"", text,
        "\" (expected label.KEY, param.NAME, metric.NAME[:last|:min|:max], id, name, state, "
        "queue or created)"));
  }
  if (name.empty() || !NameCharsOk(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "column \"", text, "\": the name after the prefix must be letters, digits, _ - . /"));
  }
  column.name = std::string(name);
  return column;
}

absl::StatusOr<RunCondition> ParseRunCondition(absl::string_view text) {
  if (text.size() > kMaxRunKeyBytes + kMaxRunValueBytes + 2) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text.substr(0, 40), "...\" is too long"));
  }
  static constexpr std::pair<const char*, CompareOp> kOps[] = {
      {"!=", CompareOp::kNe}, {"<=", CompareOp::kLe}, {">=", CompareOp::kGe},
      {"=", CompareOp::kEq},  {"<", CompareOp::kLt},  {">", CompareOp::kGt}};
  const size_t at = text.find_first_of("!=<>");
  if (at == absl::string_view::npos || at == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", text, "\": expected COLUMN OP VALUE with OP one of = != < <= > >= "
        "(metric.test_accuracy>0.85)"));
  }
  RunCondition condition;
  absl::string_view rest = text.substr(at);
  bool matched = false;
  for (const auto& [op, code] : kOps) {
    if (absl::ConsumePrefix(&rest, op)) {
      condition.op = code;
      matched = true;
      break;
    }
  }
  if (!matched) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\": unknown operator"));
  }
  absl::StatusOr<RunColumn> column = ParseRunColumn(text.substr(0, at));
  if (!column.ok()) return column.status();
  condition.column = std::move(*column);
  condition.value = std::string(rest);
  condition.number = Number(rest);
  if (!condition.number && condition.column.kind == RunColumn::Kind::kMetric) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\": a metric compares with a number"));
  }
  return condition;
}

absl::StatusOr<RunsQuery> ParseRunsQuery(const RunsParams& params) {
  RunsQuery query;
  auto failed = [](const char* name, const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", s.message()));
  };
  if (!params.columns.empty()) {
    for (absl::string_view key : absl::StrSplit(params.columns, ',', absl::SkipEmpty())) {
      if (query.columns.size() >= kMaxRunColumns) {
        return absl::InvalidArgumentError(
            absl::StrCat("columns: at most ", kMaxRunColumns, " columns"));
      }
      absl::StatusOr<RunColumn> column = ParseRunColumn(key);
      if (!column.ok()) return failed("columns", column.status());
      query.columns.push_back(std::move(*column));
    }
  }
  if (params.where.size() > static_cast<size_t>(kMaxRunConditions)) {
    return absl::InvalidArgumentError(
        absl::StrCat("where: at most ", kMaxRunConditions, " conditions"));
  }
  for (const std::string& text : params.where) {
    absl::StatusOr<RunCondition> condition = ParseRunCondition(text);
    if (!condition.ok()) return failed("where", condition.status());
    query.where.push_back(std::move(*condition));
  }
  query.sort.name = "id";
  query.sort.key = "id";
  if (!params.sort.empty()) {
    absl::string_view key = params.sort;
    query.descending = absl::ConsumePrefix(&key, "-");
    absl::StatusOr<RunColumn> column = ParseRunColumn(key);
    if (!column.ok()) return failed("sort", column.status());
    query.sort = std::move(*column);
  }
  if (!params.offset.empty() &&
      (!absl::SimpleAtoi(params.offset, &query.offset) || query.offset < 0 ||
       query.offset > kMaxRunOffset || absl::StrCat(query.offset) != params.offset)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "offset: expected an integer from 0 to ", kMaxRunOffset, ", got \"", params.offset, "\""));
  }
  if (!params.limit.empty()) {
    if (!absl::SimpleAtoi(params.limit, &query.limit) || query.limit < 1 ||
        query.limit > kMaxRunsPage || absl::StrCat(query.limit) != params.limit) {
      return absl::InvalidArgumentError(absl::StrCat(
          "limit: expected an integer from 1 to ", kMaxRunsPage, ", got \"", params.limit, "\""));
    }
  }
  return query;
}

RunValue ValueOf(const RunColumn& column, const RunFacts& facts) {
  const Job& job = *facts.job;
  switch (column.kind) {
    case RunColumn::Kind::kLabel: {
      auto it = job.spec.labels.find(column.name);
      if (it == job.spec.labels.end()) return {};
      return Cell(it->second);
    }
    case RunColumn::Kind::kParam: {
      if (facts.params == nullptr) return {};
      auto it = facts.params->find(column.name);
      if (it == facts.params->end()) return {};
      return Cell(it->second);
    }
    case RunColumn::Kind::kMetric: {
      if (facts.metrics == nullptr) return {};
      auto it = facts.metrics->find(column.name);
      if (it == facts.metrics->end()) return {};
      const MetricSummary& m = it->second;
      const double v = column.stat == MetricStat::kMin   ? m.min
                       : column.stat == MetricStat::kMax ? m.max
                                                         : m.last;
      if (std::isnan(v)) return {};
      return v;
    }
    case RunColumn::Kind::kBuiltin:
      break;
  }
  if (column.name == "id") return Cell(job.id);
  if (column.name == "name") return job.name;
  if (column.name == "state") return std::string(JobStateName(job.state));
  if (column.name == "queue") return job.queue;
  if (column.name == "created" && job.created) return absl::ToDoubleSeconds(*job.created - absl::UnixEpoch());
  return {};
}

std::vector<size_t> SelectRuns(const RunsQuery& query, const std::vector<RunFacts>& rows) {
  std::vector<size_t> picked;
  std::vector<RunValue> keys(rows.size());
  std::vector<RunValue> ids(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    bool pass = true;
    for (const RunCondition& c : query.where) {
      if (!Holds(c, ValueOf(c.column, rows[i]))) {
        pass = false;
        break;
      }
    }
    if (!pass) continue;
    picked.push_back(i);
    keys[i] = ValueOf(query.sort, rows[i]);
    ids[i] = Cell(rows[i].job->id);
  }
  std::stable_sort(picked.begin(), picked.end(), [&](size_t a, size_t b) {
    const bool none_a = std::holds_alternative<std::monostate>(keys[a]);
    const bool none_b = std::holds_alternative<std::monostate>(keys[b]);
    if (none_a != none_b) return none_b;
    if (!none_a) {
      const int cmp = Compare(keys[a], keys[b]);
      if (cmp != 0) return query.descending ? cmp > 0 : cmp < 0;
    }
    return Compare(ids[a], ids[b]) > 0;  // newest first among equals
  });
  return picked;
}

}  // namespace dlp::server
