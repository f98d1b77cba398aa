#include "sweep/sampling.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dlp::internal {
namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

// The number of grid points of one parameter.
int64_t Points(const ParameterSpec& p) {
  switch (p.type) {
    case ParamType::kInt:
      return static_cast<int64_t>(p.max) - static_cast<int64_t>(p.min) + 1;
    case ParamType::kFloat:
    case ParamType::kLogFloat:
      return p.steps;
    case ParamType::kCategorical:
      return static_cast<int64_t>(p.values.size());
  }
  return 0;
}

// Point `i` (0-based) of `p`'s grid.
std::string GridValue(const ParameterSpec& p, int64_t i) {
  switch (p.type) {
    case ParamType::kInt:
      return absl::StrCat(static_cast<int64_t>(p.min) + i);
    case ParamType::kFloat: {
      const double t = p.steps > 1 ? static_cast<double>(i) / (p.steps - 1) : 0;
      return FormatParamValue(p.type, p.min + t * (p.max - p.min));
    }
    case ParamType::kLogFloat: {
      const double t = p.steps > 1 ? static_cast<double>(i) / (p.steps - 1) : 0;
      return FormatParamValue(p.type,
                              std::exp(std::log(p.min) + t * (std::log(p.max) - std::log(p.min))));
    }
    case ParamType::kCategorical:
      return p.values[static_cast<size_t>(i)];
  }
  return "";
}

std::string RandomValue(const ParameterSpec& p, double u) {
  switch (p.type) {
    case ParamType::kInt: {
      const int64_t n = Points(p);
      const int64_t i = std::min<int64_t>(static_cast<int64_t>(u * static_cast<double>(n)), n - 1);
      return absl::StrCat(static_cast<int64_t>(p.min) + i);
    }
    case ParamType::kFloat:
      return FormatParamValue(p.type, p.min + u * (p.max - p.min));
    case ParamType::kLogFloat:
      return FormatParamValue(p.type,
                              std::exp(std::log(p.min) + u * (std::log(p.max) - std::log(p.min))));
    case ParamType::kCategorical: {
      const size_t n = p.values.size();
      const size_t i = std::min(static_cast<size_t>(u * static_cast<double>(n)), n - 1);
      return p.values[i];
    }
  }
  return "";
}

}  // namespace

uint64_t SplitMix64::Next() {
  uint64_t z = (state_ += kGolden);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double SplitMix64::Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

std::optional<int64_t> GridSize(const SweepSpec& spec) {
  int64_t size = 1;
  for (const ParameterSpec& p : spec.parameters) {
    const int64_t n = Points(p);
    if (n <= 0 || size > kMaxSweepTrials / n) return std::nullopt;
    size *= n;
  }
  return size;
}

int TotalTrials(const SweepSpec& spec) {
  if (spec.search.algorithm != SearchAlgorithm::kGrid) return spec.max_trials;
  const int64_t grid = GridSize(spec).value_or(0);
  if (spec.max_trials > 0 && spec.max_trials < grid) return spec.max_trials;
  return static_cast<int>(grid);
}

TrialParams SampleTrial(const SweepSpec& spec, int number) {
  TrialParams params;
  if (spec.search.algorithm == SearchAlgorithm::kGrid) {
    int64_t index = number - 1;
    for (auto p = spec.parameters.rbegin(); p != spec.parameters.rend(); ++p) {
      const int64_t n = Points(*p);
      params[p->name] = GridValue(*p, index % n);
      index /= n;
    }
    return params;
  }
  SplitMix64 rng(spec.search.seed + static_cast<uint64_t>(number) * kGolden);
  for (const ParameterSpec& p : spec.parameters) params[p.name] = RandomValue(p, rng.Uniform());
  return params;
}

std::string FormatParamValue(ParamType type, double value) {
  if (type == ParamType::kInt) return absl::StrCat(static_cast<int64_t>(std::llround(value)));
  return absl::StrFormat("%.6g", value);
}

}  // namespace dlp::internal

namespace dlp {

TrialParams TrialValues(const SweepSpec& sweep, int number) {
  return internal::SampleTrial(sweep, number);
}

}  // namespace dlp
