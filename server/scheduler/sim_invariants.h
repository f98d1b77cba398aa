// What every scheduling decision must respect, checked by the simulator
// (simulator.h) against the snapshot it answers. Each check has a name that
// counts its violations:
//   capacity         running jobs plus starts exceed cpu, memory, gpu, a GPU
//                    flavour, or a device's 1000 milli-GPUs
//   gang             a start's placement is not exactly its job's GPU replicas
//                    (a partial gang), or names a device that does not exist
//                    or is of another gpu type
//   decision         a start of a job that is not waiting, a job started
//                    twice, a victim that is not running or already stopping,
//                    a preemptor that is not waiting
//   start-preempt    one job both started and preempted in one decision
//   guarantee        a victim that is not preemptible, of its preemptor's
//                    queue without a lower priority, or of another queue that
//                    was within its nominal quota (used <= nominal in every
//                    resource, before the decision)
//   reservation      backfill delays a queue head: jobs behind the head in
//                    its queue start and run past the head's estimated start
//                    (by their time limits; none: for ever), and the head,
//                    which fitted there beside the running jobs and the
//                    decision's other starts, no longer does. Starts of other
//                    queues are not backfill (they may legitimately move a
//                    head's estimate); the heads are the waiting jobs with
//                    position 1 and an estimated start.
//   preemption-loop  a job preempted more than K times by preemptors that
//                    have not started since
//   elastic          a start of an elastic job outside [minCount, count] (or
//                    of a rigid one at a size); a resize of a job that is not
//                    running, is stopping or re-forming, is rigid, goes below
//                    its minimum or past its count, or whose placement is
//                    not exactly its GPU replicas at the new size
//   resize-interval  a job resized sooner than Snapshot::resize_interval
//                    after its start or its previous resize (a resize loop),
//                    unless it shrinks for a waiting job that could preempt
//                    it (of another queue, or of a higher priority in its own)
//   starvation       a job admitted but never started (set by the simulator)
//   late-head        (strict_head_estimates) a head started after its estimate
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "server/scheduler/snapshot.h"

namespace dlp::server {

class InvariantChecker {
 public:
  explicit InvariantChecker(int max_unanswered_preemptions)
      : max_unanswered_(max_unanswered_preemptions) {}

  // Checks `decision` against `snapshot`, the one it answers, before it is
  // applied; remembers preemptions and starts for the preemption-loop check.
  void Check(const Snapshot& snapshot, const Decision& decision);

  void Fail(const std::string& invariant, const std::string& message);
  const std::vector<std::string>& violations() const { return violations_; }
  const std::map<std::string, int>& counts() const { return counts_; }

 private:
  // The waiting jobs the decision names, by seq.
  using PendingMap = std::map<int64_t, const PendingJob*>;
  void CheckStarts(const Snapshot& snapshot, const Decision& decision, const PendingMap& pending);
  void CheckPreemptions(const Snapshot& snapshot, const Decision& decision,
                        const PendingMap& pending);
  void CheckReservations(const Snapshot& snapshot, const Decision& decision,
                         const PendingMap& pending);
  void TrackPreemptionLoops(const Decision& decision);
  // sim_elastic_invariants.cc.
  void CheckResizes(const Snapshot& snapshot, const Decision& decision, const PendingMap& pending);
  void CheckElasticStarts(const Decision& decision, const PendingMap& pending);

  int max_unanswered_;
  // victim -> its preemptors that have not started since they preempted it,
  // and the reverse: preemptor -> its victims.
  std::map<int64_t, std::multiset<int64_t>> unanswered_;
  std::map<int64_t, std::vector<int64_t>> victims_of_;
  // Each elastic job's start or last resize, as the decisions said.
  std::map<int64_t, absl::Time> last_resize_;
  std::vector<std::string> violations_;
  std::map<std::string, int> counts_;
};

}  // namespace dlp::server
