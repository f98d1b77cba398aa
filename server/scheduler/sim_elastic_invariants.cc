// The elastic invariants of sim_invariants.h: sizes within [minCount,
// count], whole gangs at every size, and no grow sooner than the interval.
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/sim_invariants.h"

namespace dlp::server {
namespace {

// The GPU each replica of `placement` holds, by replica.
std::map<std::string, int64_t> Held(const std::vector<ReplicaPlacement>& placement) {
  std::map<std::string, int64_t> out;
  for (const ReplicaPlacement& p : placement) {
    for (const GpuShare& share : p.gpus) out[p.replica] += share.millis;
  }
  return out;
}

// A shrink for a waiting job that could preempt the shrunk one whole (of
// another queue, or of a higher priority in its own): it spares that
// preemption and is never held back by the interval.
bool ForPreemptor(const ResizeDecision& r, const RunningJob& job,
                  const std::map<int64_t, const PendingJob*>& pending) {
  if (r.to >= r.from) return false;
  auto it = pending.find(r.for_job);
  if (it == pending.end()) return false;
  return it->second->queue != job.queue || it->second->priority > job.priority;
}

}  // namespace

void InvariantChecker::CheckElasticStarts(const Decision& decision, const PendingMap& pending) {
  for (const StartDecision& start : decision.start) {
    auto it = pending.find(start.seq);
    if (it == pending.end()) continue;
    const ElasticRole& e = it->second->elastic;
    const std::string name = absl::StrCat("job ", start.seq);
    if (!e.elastic()) {
      if (start.size != 0) {
        Fail("elastic", absl::StrCat(name, " is rigid, started at ", start.size));
      }
      continue;
    }
    if (start.size != 0 && (start.size < e.min || start.size > e.max)) {  // 0: whole
      Fail("elastic", absl::StrCat(name, " started at ", start.size, " of [", e.min, ", ", e.max,
                                   "]"));
    }
  }
}

void InvariantChecker::CheckResizes(const Snapshot& snapshot, const Decision& decision,
                                    const PendingMap& pending) {
  for (const StartDecision& start : decision.start) {
    last_resize_[start.seq] = snapshot.now;
  }
  if (decision.resize.empty()) return;
  std::map<int64_t, const RunningJob*> running;
  for (const RunningJob& job : snapshot.running) running[job.seq] = &job;
  std::set<int64_t> victims, seen;
  for (const PreemptDecision& p : decision.preempt) victims.insert(p.victim);
  for (const ResizeDecision& r : decision.resize) {
    const std::string name = absl::StrCat("job ", r.seq);
    auto it = running.find(r.seq);
    if (it == running.end() || it->second->stopping || it->second->resizing_to != 0) {
      Fail("elastic", name + " resized but it is not running, or stopping, or re-forming");
      continue;
    }
    if (!seen.insert(r.seq).second || victims.contains(r.seq)) {
      Fail("elastic", name + " resized twice, or resized and preempted, in one decision");
    }
    const RunningJob& job = *it->second;
    const ElasticRole& e = job.elastic;
    if (!e.elastic() || r.from != job.size || r.to == r.from || r.to < e.min || r.to > e.max) {
      Fail("elastic", absl::StrCat(name, " resized ", r.from, "\u2192", r.to, " at size ",
                                   job.size, " of [", e.min, ", ", e.max, "]"));
      continue;
    }
    // Whole at the new size: the replicas it keeps hold what they held, the
    // grown ones exactly their demand.
    std::map<std::string, int64_t> want = Held(PlacementAtSize(e, job.placement, r.to));
    for (const ReplicaGpuDemand& g : GrownGpuDemands(e, r.from, r.to)) {
      want[g.replica] = g.gpu_millis;
    }
    if (Held(r.placement) != want) {
      Fail("gang", absl::StrCat(name, " resized ", r.from, "\u2192", r.to,
                                " without exactly its replicas' GPUs"));
    }
    auto last = last_resize_.find(r.seq);
    const absl::Time since = last != last_resize_.end() ? last->second : job.resized;
    if (snapshot.now - since < snapshot.resize_interval && !ForPreemptor(r, job, pending)) {
      const char* what = r.to > r.from ? " grew " : " shrank for a job that could not preempt it ";
      Fail("resize-interval",
           absl::StrCat(name, what, absl::FormatDuration(snapshot.now - since),
                        " after its last resize; the interval is ",
                        absl::FormatDuration(snapshot.resize_interval)));
    }
    last_resize_[r.seq] = snapshot.now;
  }
}

}  // namespace dlp::server
