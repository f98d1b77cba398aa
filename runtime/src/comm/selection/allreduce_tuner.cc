#include "comm/selection/allreduce_tuner.h"

#include <algorithm>
#include <iterator>

#include "comm/algorithms/direct.h"

namespace dlp::runtime {
namespace {

// The lower median: a class's first trial call, cold, is its slowest by far,
// and one slow call should not move the figure it joins.
double LowerMedian(std::vector<double> v) {
  const auto middle = v.begin() + static_cast<long>((v.size() - 1) / 2);
  std::nth_element(v.begin(), middle, v.end());
  return *middle;
}

constexpr Algo kSmall[] = {Algo::kOneShot, Algo::kDirect, Algo::kRing};
constexpr Algo kLarge[] = {Algo::kDirect, Algo::kRing};
static_assert(std::size(kSmall) <= AllreduceTuner::kMostCandidates);

size_t IndexOf(absl::Span<const Algo> candidates, Algo a) {
  return static_cast<size_t>(std::find(candidates.begin(), candidates.end(), a) -
                             candidates.begin());
}

}  // namespace

absl::Span<const Algo> AllreduceTuner::Candidates(size_t bytes) {
  if (bytes <= kOneShotMaxBytes) return kSmall;
  return kLarge;
}

absl::StatusOr<AllreduceTuner::Pick> AllreduceTuner::Next(ShmGroup& g, size_t bytes) {
  SizeClass& k = classes_[static_cast<size_t>(ClassOf(bytes))];
  const absl::Span<const Algo> candidates = Candidates(bytes);
  constexpr int kEach = kSettle + kTrials;
  if (!k.decided && k.calls == static_cast<int>(candidates.size()) * kEach) {
    absl::StatusOr<Algo> choice = Decide(g, bytes);
    if (!choice.ok()) return choice.status();
    k.choice = *choice;
    k.decided = true;
  }
  if (k.decided) return Pick{k.choice, false};
  const int call = k.calls++;
  return Pick{candidates[static_cast<size_t>(call / kEach)], call % kEach >= kSettle};
}

void AllreduceTuner::Record(size_t bytes, Algo ran, absl::Duration took) {
  SizeClass& k = classes_[static_cast<size_t>(ClassOf(bytes))];
  k.seconds[IndexOf(Candidates(bytes), ran)].push_back(absl::ToDoubleSeconds(took));
}

absl::StatusOr<Algo> AllreduceTuner::Decide(ShmGroup& g, size_t bytes) {
  const int c = ClassOf(bytes);
  const SizeClass& k = classes_[static_cast<size_t>(c)];
  const absl::Span<const Algo> candidates = Candidates(bytes);
  const size_t n = candidates.size();
  // Every trial call was recorded: one that failed broke the communicator,
  // whose later calls fail before they get here.
  double* mine = g.tuning(g.rank()) + kMostCandidates * c;
  for (size_t a = 0; a < n; ++a) mine[a] = LowerMedian(k.seconds[a]);
  if (absl::Status s = GroupBarrier(g); !s.ok()) return s;
  // The slowest rank's median of each: the same figures everywhere, so the same choice.
  std::array<double, kMostCandidates> slowest{};
  for (int r = 0; r < g.size(); ++r) {
    const double* theirs = g.tuning(r) + kMostCandidates * c;
    for (size_t a = 0; a < n; ++a) slowest[a] = std::max(slowest[a], theirs[a]);
  }
  return candidates[static_cast<size_t>(std::min_element(slowest.begin(), slowest.begin() + n) -
                                        slowest.begin())];
}

}  // namespace dlp::runtime
