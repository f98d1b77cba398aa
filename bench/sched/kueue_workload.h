// The workload of Kueue's scheduler baseline
// (test/performance/scheduler/configs/baseline/generator.yaml in
// kubernetes-sigs/kueue): 5 cohorts x 6 queues; per queue three classes of
// workloads, each arriving at a fixed interval; as Kueue's generator waits one
// interval before each create, the first of a class comes one interval in.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace dlp::bench {

struct WorkloadClass {
  std::string name;  // "small", "medium", "large"
  int count_per_queue = 0;
  int cpus = 0;
  absl::Duration runtime;
  int priority = 0;
  absl::Duration interval;
  double kueue_admission_s = 0;  // Kueue's published mean time to admission
};

inline std::vector<WorkloadClass> KueueBaselineClasses() {
  return {
      {"small", 350, 1, absl::Milliseconds(200), 50, absl::Milliseconds(100), 215.0},
      {"medium", 100, 5, absl::Milliseconds(500), 100, absl::Milliseconds(500), 76.8},
      {"large", 50, 20, absl::Milliseconds(1000), 200, absl::Milliseconds(1200), 16.5},
  };
}

constexpr int kCohorts = 5;
constexpr int kQueuesPerCohort = 6;
constexpr int kNominalCpus = 20;
constexpr int kBorrowingLimitCpus = 100;
constexpr int kCapacityCpus = 600;
// Kueue's published averages on this workload.
constexpr double kKueueWallS = 351.0;
constexpr double kKueueUsage = 0.559;

struct Arrival {
  absl::Duration at;  // after the start of the run
  int queue = 0;      // 0 .. kCohorts * kQueuesPerCohort - 1
  int klass = 0;      // index into the classes
};

inline std::string QueueName(int queue) { return absl::StrCat("q", queue); }
inline std::string CohortName(int queue) { return absl::StrCat("c", queue / kQueuesPerCohort); }

// Every arrival in time order. `scale` multiplies each class's count per
// queue (rounded up); the intervals stay, so the arrival rate is Kueue's and
// only the run is shorter.
inline std::vector<Arrival> KueueBaselineArrivals(const std::vector<WorkloadClass>& classes,
                                                  double scale) {
  std::vector<Arrival> out;
  for (int q = 0; q < kCohorts * kQueuesPerCohort; ++q) {
    for (int k = 0; k < static_cast<int>(classes.size()); ++k) {
      const int count = static_cast<int>(std::ceil(classes[k].count_per_queue * scale));
      for (int i = 0; i < count; ++i) out.push_back({classes[k].interval * (i + 1), q, k});
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
  return out;
}

// Prints `who`'s figures next to Kueue's published ones, as a Markdown table:
// wall time, usage (0..1) and the mean time to admission of each class.
inline void PrintAgainstKueue(const char* who, double wall_s, double usage,
                              const std::vector<WorkloadClass>& classes,
                              const std::vector<double>& admission_s) {
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0; };
  std::printf("\n| figure | %s | Kueue | %s / Kueue |\n| --- | ---: | ---: | ---: |\n", who, who);
  std::printf("| wall s | %.1f | %.1f | %.2f |\n", wall_s, kKueueWallS, ratio(wall_s, kKueueWallS));
  std::printf("| usage %% | %.1f | %.1f | %.2f |\n", 100 * usage, 100 * kKueueUsage,
              ratio(usage, kKueueUsage));
  for (int k = static_cast<int>(classes.size()) - 1; k >= 0; --k) {
    std::printf("| admission %s s | %.3f | %.1f | %.4f |\n", classes[k].name.c_str(),
                admission_s[k], classes[k].kueue_admission_s,
                ratio(admission_s[k], classes[k].kueue_admission_s));
  }
}

}  // namespace dlp::bench
