#include "comm/allreduce_tuner.h"

#include <algorithm>
#include <cstring>

#include "comm/direct.h"

namespace dlp::runtime {
namespace {

double Median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

absl::StatusOr<AllreduceTuner::Pick> AllreduceTuner::Next(ShmGroup& g, size_t bytes) {
  SizeClass& k = classes_[static_cast<size_t>(ClassOf(bytes))];
  if (!k.decided && k.calls == 2 * kTrials) {
    absl::StatusOr<Algo> choice = Decide(g, bytes);
    if (!choice.ok()) return choice.status();
    k.choice = *choice;
    k.decided = true;
  }
  if (k.decided) return Pick{k.choice, false};
  // Runs of each, alternating, so that both see the same spells of a busy
  // host; a run's first call, which follows the other algorithm, is not
  // timed: the caches then hold the other's data, not its own.
  const int call = k.calls++;
  return Pick{Candidates(bytes)[static_cast<size_t>(call / kRun % 2)], call % kRun != 0};
}

void AllreduceTuner::Record(size_t bytes, Algo ran, absl::Duration took) {
  SizeClass& k = classes_[static_cast<size_t>(ClassOf(bytes))];
  k.seconds[ran == Candidates(bytes)[0] ? 0 : 1].push_back(absl::ToDoubleSeconds(took));
}

absl::StatusOr<Algo> AllreduceTuner::Decide(ShmGroup& g, size_t bytes) {
  const int c = ClassOf(bytes);
  const SizeClass& k = classes_[static_cast<size_t>(c)];
  // Every trial call was recorded: one that failed broke the communicator,
  // whose later calls fail before they get here.
  double mine[2];
  for (size_t a = 0; a < 2; ++a) mine[a] = Median(k.seconds[a]);
  std::memcpy(g.tuning(g.rank()) + 2 * c, mine, sizeof(mine));
  if (absl::Status s = GroupBarrier(g); !s.ok()) return s;
  // The slowest rank's median of each: the same figures everywhere, so the same choice.
  double slowest[2] = {0, 0};
  for (int r = 0; r < g.size(); ++r) {
    double theirs[2];
    std::memcpy(theirs, g.tuning(r) + 2 * c, sizeof(theirs));
    for (size_t a = 0; a < 2; ++a) slowest[a] = std::max(slowest[a], theirs[a]);
  }
  return Candidates(bytes)[slowest[1] < slowest[0] ? 1 : 0];
}

}  // namespace dlp::runtime
