#include "sweep/placeholders.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/status.h"
#include "sweep/sampling.h"

namespace dlp::internal {
namespace {

constexpr absl::string_view kParams = "${params.";
constexpr absl::string_view kResource = "${resource}";

// Calls `found(start, length, name)` for each placeholder: name is the
// parameter's, or empty for ${resource}.
template <typename Found>
void Scan(absl::string_view text, const Found& found) {
  for (size_t i = text.find("${"); i != absl::string_view::npos; i = text.find("${", i + 1)) {
    const absl::string_view rest = text.substr(i);
    if (absl::StartsWith(rest, kResource)) {
      found(i, kResource.size(), absl::string_view());
    } else if (absl::StartsWith(rest, kParams)) {
      const size_t close = rest.find('}');
      if (close == absl::string_view::npos) continue;
      found(i, close + 1, rest.substr(kParams.size(), close - kParams.size()));
    }
  }
}

}  // namespace

Problem CheckPlaceholders(absl::string_view text, const SweepSpec& sweep) {
  Problem problem;
  Scan(text, [&](size_t, size_t, absl::string_view name) {
    if (problem) return;
    if (name.empty()) {
      if (sweep.search.algorithm != SearchAlgorithm::kAsha) {
        problem = "${resource} is given only by spec.search.algorithm asha";
      }
      return;
    }
    for (const ParameterSpec& p : sweep.parameters) {
      if (p.name == name) return;
    }
    std::vector<std::string> names;
    for (const ParameterSpec& p : sweep.parameters) names.push_back(p.name);
    problem = absl::StrCat("unknown parameter '", name, "' in ${params.", name,
                           "}; parameters: ", names.empty() ? "none" : absl::StrJoin(names, ", "));
  });
  return problem;
}

std::string Substitute(absl::string_view text, const TrialParams& params, int64_t resource) {
  std::string out;
  size_t copied = 0;
  Scan(text, [&](size_t start, size_t length, absl::string_view name) {
    if (start < copied) return;
    std::string value;
    if (name.empty()) {
      if (resource < 0) return;
      value = absl::StrCat(resource);
    } else {
      auto it = params.find(std::string(name));
      if (it == params.end()) return;
      value = it->second;
    }
    absl::StrAppend(&out, text.substr(copied, start - copied), value);
    copied = start + length;
  });
  absl::StrAppend(&out, text.substr(copied));
  return out;
}

}  // namespace dlp::internal

namespace dlp {

absl::StatusOr<JobSpec> TrialJobSpec(const SweepSpec& sweep, const std::string& sweep_id,
                                     int number, const TrialParams& params) {
  const int64_t resource =
      sweep.search.algorithm == SearchAlgorithm::kAsha ? sweep.search.max_resource : -1;
  JobSpec job = sweep.job;
  job.name = absl::StrCat(sweep.name, "-", number);
  for (const auto& [key, value] : sweep.labels) job.labels[key] = value;
  job.labels[std::string(kSweepLabel)] = sweep_id;
  job.labels[std::string(kTrialLabel)] = absl::StrCat(number);
  for (ReplicaSpec& r : job.replicas) {
    for (std::string& arg : r.command) arg = internal::Substitute(arg, params, resource);
    for (auto& [name, value] : r.env) value = internal::Substitute(value, params, resource);
  }
  DLP_RETURN_IF_ERROR(ValidateJobSpec(job));
  return job;
}

}  // namespace dlp
