// The rules of a sweep's own fields (spec_decoder.h) and ValidateSweepSpec,
// which applies them, the job rules and the placeholder rules to a SweepSpec
// built in code or received over the API.
#include <cmath>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/status.h"
#include "sweep/placeholders.h"
#include "sweep/sampling.h"
#include "sweep/spec_decoder.h"

namespace dlp::internal {

Problem CheckSweepName(absl::string_view name) {
  if (Problem p = CheckJobName(name)) return p;
  if (name.size() > static_cast<size_t>(kMaxSweepNameBytes)) {
    return absl::StrCat("a sweep name has at most ", kMaxSweepNameBytes,
                        " characters (its trials are named NAME-NUMBER)");
  }
  return std::nullopt;
}

Problem CheckParameterName(absl::string_view name) {
  bool ok = !name.empty() && name.size() <= 64 &&
            !absl::ascii_isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (ok) return std::nullopt;
  return absl::StrCat("\"", name,
                      "\" is not a parameter name; expected letters, digits and '_', not "
                      "starting with a digit, at most 64 characters");
}

Problem CheckParameter(const ParameterSpec& p) {
  if (p.type == ParamType::kCategorical) {
    if (p.values.empty()) return "a categorical parameter needs values: [a, b, ...]";
    if (p.values.size() > static_cast<size_t>(kMaxCategoricalValues)) {
      return absl::StrCat(p.values.size(), " values; at most ", kMaxCategoricalValues);
    }
    std::set<std::string> seen;
    for (const std::string& v : p.values) {
      if (!seen.insert(v).second) return absl::StrCat("value \"", v, "\" is given twice");
      if (Problem t = CheckText(v)) return t;
    }
    return std::nullopt;
  }
  if (!std::isfinite(p.min) || !std::isfinite(p.max)) return "min and max must be finite numbers";
  if (p.min > p.max) return absl::StrCat("min (", p.min, ") is above max (", p.max, ")");
  if (std::fabs(p.min) > 1e15 || std::fabs(p.max) > 1e15) return "min and max are at most 1e15";
  if (p.type == ParamType::kInt && (p.min != std::floor(p.min) || p.max != std::floor(p.max))) {
    return "an int parameter's min and max are integers";
  }
  if (p.type == ParamType::kLogFloat && p.min <= 0) return "a logfloat parameter's min is above 0";
  if (p.steps < 0 || p.steps > kMaxGridSteps) {
    return absl::StrCat("steps is from 1 to ", kMaxGridSteps);
  }
  return std::nullopt;
}

Problem CheckSearch(const SearchSpec& search) {
  if (search.algorithm != SearchAlgorithm::kAsha) return std::nullopt;
  if (search.min_resource < 1 || search.min_resource > kMaxAshaResource) {
    return absl::StrCat("min is from 1 to ", kMaxAshaResource);
  }
  if (search.max_resource <= search.min_resource || search.max_resource > kMaxAshaResource) {
    return absl::StrCat("max is above min and at most ", kMaxAshaResource);
  }
  if (search.reduction_factor < 2 || search.reduction_factor > kMaxReductionFactor) {
    return absl::StrCat("reductionFactor is from 2 to ", kMaxReductionFactor);
  }
  if (Problem p = CheckParameterName(search.resource)) return absl::StrCat("resource: ", *p);
  return std::nullopt;
}

Problem CheckTrials(const SweepSpec& spec) {
  if (spec.parallelism < 1 || spec.parallelism > kMaxSweepParallelism) {
    return absl::StrCat("parallelism is from 1 to ", kMaxSweepParallelism);
  }
  if (spec.max_trials < 0 || spec.max_trials > kMaxSweepTrials) {
    return absl::StrCat("maxTrials is from 1 to ", kMaxSweepTrials);
  }
  if (spec.search.algorithm != SearchAlgorithm::kGrid) {
    if (spec.max_trials == 0) return "maxTrials is required for random and asha";
    return std::nullopt;
  }
  for (const ParameterSpec& p : spec.parameters) {
    if (p.type != ParamType::kInt && p.type != ParamType::kCategorical && p.steps == 0) {
      return absl::StrCat("a grid over ", std::string(ParamTypeName(p.type)), " parameter '",
                          p.name, "' needs steps: N (the number of points from min to max)");
    }
  }
  if (!GridSize(spec)) {
    return absl::StrCat("the grid has more than ", kMaxSweepTrials,
                        " points; narrow the parameters or give fewer steps");
  }
  return std::nullopt;
}

}  // namespace dlp::internal

namespace dlp {

std::string_view ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "int";
    case ParamType::kFloat:
      return "float";
    case ParamType::kLogFloat:
      return "logfloat";
    case ParamType::kCategorical:
      return "categorical";
  }
  return "";
}

std::string_view SearchAlgorithmName(SearchAlgorithm algorithm) {
  switch (algorithm) {
    case SearchAlgorithm::kGrid:
      return "grid";
    case SearchAlgorithm::kRandom:
      return "random";
    case SearchAlgorithm::kAsha:
      return "asha";
  }
  return "";
}

absl::Status ValidateSweepSpec(const SweepSpec& spec) {
  std::vector<std::string> problems;
  auto check = [&](absl::string_view path, const internal::Problem& p) {
    if (p && problems.size() < 20) problems.push_back(absl::StrCat(path, ": ", *p));
  };
  check("metadata.name", internal::CheckSweepName(spec.name));
  if (spec.objective.metric.empty()) check("spec.objective.metric", "required");
  check("spec.search", internal::CheckSearch(spec.search));
  check("spec", internal::CheckTrials(spec));
  if (spec.parameters.empty()) check("spec.parameters", "needs at least one parameter");
  if (spec.parameters.size() > static_cast<size_t>(kMaxSweepParameters)) {
    check("spec.parameters", absl::StrCat("at most ", kMaxSweepParameters, " parameters"));
  }
  std::set<std::string> names;
  for (const ParameterSpec& p : spec.parameters) {
    const std::string path = absl::StrCat("spec.parameters.", p.name);
    check(path, internal::CheckParameterName(p.name));
    if (!names.insert(p.name).second) check(path, "given twice");
    check(path, internal::CheckParameter(p));
  }
  for (const ReplicaSpec& r : spec.job.replicas) {
    const std::string path = absl::StrCat("spec.template.replicas.", r.role);
    for (size_t i = 0; i < r.command.size(); ++i) {
      check(absl::StrCat(path, ".command[", i, "]"),
            internal::CheckPlaceholders(r.command[i], spec));
    }
    for (const auto& [name, value] : r.env) {
      check(absl::StrCat(path, ".env.", name), internal::CheckPlaceholders(value, spec));
    }
  }
  if (absl::Status job = ValidateJobSpec(spec.job); !job.ok()) {
    problems.push_back(absl::StrCat("spec.template: ", job.message()));
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
}

}  // namespace dlp
