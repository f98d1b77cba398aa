#include "server/scheduler/sim_invariants.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/gpu_placement.h"

namespace dlp::server {
namespace {

constexpr size_t kKeptViolations = 50;

// What `used` has beyond `limit`, in words ("gpu 9000 > 8000"); empty when
// nothing. Flavours count only where `limit` names them.
std::string Excess(const ResourceVector& used, const ResourceVector& limit) {
  std::vector<std::string> parts;
  if (used.cpu_millis > limit.cpu_millis) {
    parts.push_back(absl::StrCat("cpu ", used.cpu_millis, " > ", limit.cpu_millis));
  }
  if (used.memory_bytes > limit.memory_bytes) {
    parts.push_back(absl::StrCat("memory ", used.memory_bytes, " > ", limit.memory_bytes));
  }
  if (used.gpu_millis > limit.gpu_millis) {
    parts.push_back(absl::StrCat("gpu ", used.gpu_millis, " > ", limit.gpu_millis));
  }
  for (const auto& [flavour, millis] : limit.gpu_flavours) {
    auto it = used.gpu_flavours.find(flavour);
    if (it != used.gpu_flavours.end() && it->second > millis) {
      parts.push_back(absl::StrCat("gpu.", flavour, " ", it->second, " > ", millis));
    }
  }
  return absl::StrJoin(parts, ", ");
}

// A job that holds resources until `started + time_limit` (zero: for ever).
struct Holder {
  const ResourceVector* demand;
  const std::vector<ReplicaPlacement>* placement;
  absl::Time started;
  absl::Duration time_limit;
  int64_t seq;
};

bool Outlives(const Holder& h, absl::Time when) {
  return h.time_limit <= absl::ZeroDuration() || h.started + h.time_limit > when;
}

// Whether `job` fits at `when` beside the holders that may still run then.
bool FitsAt(const PendingJob& job, absl::Time when, const std::vector<Holder>& holders,
            const ResourceVector& capacity, const std::vector<GpuDevice>& devices) {
  ResourceVector used = job.demand;
  DeviceUse use;
  for (const Holder& h : holders) {
    if (!Outlives(h, when)) continue;
    used += *h.demand;
    for (const ReplicaPlacement& p : *h.placement) {
      for (const GpuShare& share : p.gpus) use[share.device] += share.millis;
    }
  }
  return Excess(used, capacity).empty() && PlaceGpus(job.replicas, devices, use).has_value();
}

// The waiting jobs a decision names (starts, preemptors, heads), found in one
// pass: snapshots hold thousands of waiting jobs and decisions name few.
std::map<int64_t, const PendingJob*> NamedPending(const Snapshot& snapshot,
                                                  const Decision& decision) {
  std::map<int64_t, const PendingJob*> named;
  for (const StartDecision& start : decision.start) named[start.seq] = nullptr;
  for (const PreemptDecision& p : decision.preempt) named[p.preemptor] = nullptr;
  for (const ResizeDecision& r : decision.resize) {
    if (r.for_job != 0) named[r.for_job] = nullptr;
  }
  for (const auto& [seq, why] : decision.waiting) {
    if (why.position == 1 && why.estimated_start) named[seq] = nullptr;
  }
  for (const PendingJob& job : snapshot.pending) {
    auto it = named.find(job.seq);
    if (it != named.end()) it->second = &job;
  }
  std::erase_if(named, [](const auto& entry) { return entry.second == nullptr; });
  return named;
}

}  // namespace

void InvariantChecker::Fail(const std::string& invariant, const std::string& message) {
  ++counts_[invariant];
  if (violations_.size() < kKeptViolations) violations_.push_back(invariant + ": " + message);
}

void InvariantChecker::Check(const Snapshot& snapshot, const Decision& decision) {
  if (decision.start.empty() && decision.preempt.empty() && decision.resize.empty()) return;
  std::map<int64_t, const PendingJob*> pending = NamedPending(snapshot, decision);
  CheckElasticStarts(decision, pending);
  // An elastic start is checked at the size it starts at.
  std::map<int64_t, PendingJob> sized;
  for (const StartDecision& start : decision.start) {
    auto it = pending.find(start.seq);
    if (start.size <= 0 || it == pending.end() || !it->second->elastic.elastic()) continue;
    it->second = &(sized[start.seq] = AtSize(*it->second, start.size));
  }
  CheckResizes(snapshot, decision, pending);
  CheckStarts(snapshot, decision, pending);
  CheckPreemptions(snapshot, decision, pending);
  CheckReservations(snapshot, decision, pending);
  TrackPreemptionLoops(decision);
}

void InvariantChecker::CheckStarts(const Snapshot& snapshot, const Decision& decision,
                                   const PendingMap& pending) {
  std::set<int64_t> victims;
  for (const PreemptDecision& p : decision.preempt) victims.insert(p.victim);
  std::map<std::string, const GpuDevice*> devices;
  const std::vector<GpuDevice> all_devices = DevicesOf(snapshot);
  for (const GpuDevice& d : all_devices) devices[d.id] = &d;

  ResourceVector used;
  for (const RunningJob& job : snapshot.running) used += job.demand;
  DeviceUse use = UseOf(snapshot.running);
  std::set<int64_t> started;
  for (const StartDecision& start : decision.start) {
    const std::string job_name = absl::StrCat("job ", start.seq);
    if (!started.insert(start.seq).second) Fail("decision", job_name + " started twice");
    if (victims.contains(start.seq)) {
      Fail("start-preempt", job_name + " both started and preempted in one decision");
    }
    auto it = pending.find(start.seq);
    if (it == pending.end()) {
      Fail("decision", job_name + " started but it is not waiting");
      continue;
    }
    const PendingJob& job = *it->second;
    used += job.demand;
    // A gang is whole: each GPU replica gets exactly its demand, on devices
    // of its type; nothing else is placed.
    std::map<std::string, int64_t> want, got;
    std::map<std::string, std::string> type_of;
    for (const ReplicaGpuDemand& r : job.replicas) {
      if (r.gpu_millis <= 0) continue;
      want[r.replica] += r.gpu_millis;
      type_of[r.replica] = r.gpu_type;
    }
    for (const ReplicaPlacement& p : start.placement) {
      for (const GpuShare& share : p.gpus) {
        auto device = devices.find(share.device);
        if (device == devices.end()) {
          Fail("gang", absl::StrCat(job_name, " placed on unknown device ", share.device));
          continue;
        }
        const std::string& type = type_of[p.replica];
        if (!type.empty() && !MatchesGpuType(*device->second, type)) {
          Fail("gang", absl::StrCat(job_name, " replica ", p.replica, " wants ", type,
                                    ", placed on device ", share.device));
        }
        if (share.millis <= 0 || share.millis > 1000) {
          Fail("gang", absl::StrCat(job_name, " share of ", share.millis, " on ", share.device));
        }
        got[p.replica] += share.millis;
        use[share.device] += share.millis;
      }
    }
    if (got != want) {
      auto describe = [](const std::map<std::string, int64_t>& m) {
        return absl::StrJoin(m, ",", absl::PairFormatter("="));
      };
      Fail("gang", absl::StrCat(job_name, " partial placement {", describe(got),
                                "} of its replicas {", describe(want), "}"));
    }
  }
  AddGrowths(snapshot.running, decision.resize, used, use);
  const std::string excess = Excess(used, snapshot.capacity);
  if (!excess.empty()) {
    Fail("capacity", absl::StrCat("at ", absl::FormatTime(snapshot.now), ": ", excess));
  }
  for (const auto& [device, millis] : use) {
    if (millis > 1000) {
      Fail("capacity", absl::StrCat("device ", device, " holds ", millis, " milli-GPUs"));
    }
  }
}

void InvariantChecker::CheckPreemptions(const Snapshot& snapshot, const Decision& decision,
                                        const PendingMap& pending) {
  if (decision.preempt.empty()) return;
  std::map<int64_t, const RunningJob*> running;
  std::map<std::string, ResourceVector> queue_used;  // by the jobs not stopping
  for (const RunningJob& job : snapshot.running) {
    running[job.seq] = &job;
    if (!job.stopping) queue_used[job.queue] += job.demand;
  }
  std::map<std::string, ResourceVector> nominal;
  for (const QueueConfig& q : snapshot.queues) nominal[q.name] = q.nominal;

  std::set<int64_t> seen;
  for (const PreemptDecision& p : decision.preempt) {
    const std::string victim_name = absl::StrCat("job ", p.victim);
    if (!seen.insert(p.victim).second) Fail("decision", victim_name + " preempted twice");
    auto victim = running.find(p.victim);
    if (victim == running.end() || victim->second->stopping) {
      Fail("decision", victim_name + " preempted but it is not running or already stopping");
      continue;
    }
    auto preemptor = pending.find(p.preemptor);
    if (preemptor == pending.end()) {
      Fail("decision",
           absl::StrCat(victim_name, " preempted for job ", p.preemptor, ", which is not waiting"));
      continue;
    }
    const RunningJob& v = *victim->second;
    if (!v.preemptible) {
      Fail("guarantee", victim_name + " is not preemptible but was preempted");
      continue;
    }
    const std::string& queue = preemptor->second->queue;
    if (v.queue == queue) {
      if (v.priority >= preemptor->second->priority) {
        Fail("guarantee", absl::StrCat(victim_name, " (priority ", v.priority,
                                       ") preempted in its own queue by job ", p.preemptor,
                                       " of priority ", preemptor->second->priority));
      }
      continue;
    }
    if (snapshot.queues.empty()) continue;
    auto n = nominal.find(v.queue);
    const ResourceVector& limit = n == nominal.end() ? snapshot.capacity : n->second;
    if (Excess(queue_used[v.queue], limit).empty()) {
      Fail("guarantee", absl::StrCat(victim_name, " of queue ", v.queue,
                                     ", within its nominal quota, preempted for job ", p.preemptor,
                                     " of queue ", queue));
    }
  }
}

void InvariantChecker::CheckReservations(const Snapshot& snapshot, const Decision& decision,
                                         const PendingMap& pending) {
  if (decision.start.empty()) return;
  std::set<int64_t> victims;
  for (const PreemptDecision& p : decision.preempt) victims.insert(p.victim);
  // Stopping jobs and this round's victims are about to leave: not counted.
  std::vector<Holder> running;
  for (const RunningJob& job : snapshot.running) {
    if (job.stopping || victims.contains(job.seq)) continue;
    running.push_back({&job.demand, &job.placement, job.started, job.time_limit, job.seq});
  }
  const std::vector<GpuDevice> devices = DevicesOf(snapshot);
  for (const auto& [seq, why] : decision.waiting) {
    if (why.position != 1 || !why.estimated_start || *why.estimated_start <= snapshot.now) {
      continue;
    }
    auto found = pending.find(seq);
    if (found == pending.end()) continue;
    const PendingJob& head = *found->second;
    const absl::Time when = *why.estimated_start;
    // The starts that backfill past the head (behind it in its own queue)
    // must leave it room at its estimate if the other starts did.
    std::vector<Holder> others = running, all;
    std::vector<int64_t> backfilled;
    for (const StartDecision& start : decision.start) {
      auto it = pending.find(start.seq);
      if (it == pending.end()) continue;
      const PendingJob& job = *it->second;
      const Holder h{&job.demand, &start.placement, snapshot.now, job.time_limit, job.seq};
      const bool behind =
          job.queue == head.queue &&
          (job.priority < head.priority || (job.priority == head.priority && job.seq > head.seq));
      if (!behind) {
        others.push_back(h);
      } else {
        all.push_back(h);
        if (Outlives(h, when)) backfilled.push_back(job.seq);
      }
    }
    if (backfilled.empty()) continue;
    all.insert(all.end(), others.begin(), others.end());
    if (!FitsAt(head, when, others, snapshot.capacity, devices) ||
        FitsAt(head, when, all, snapshot.capacity, devices)) {
      continue;
    }
    Fail("reservation",
         absl::StrCat("at ", absl::FormatTime(snapshot.now), " job(s) ",
                      absl::StrJoin(backfilled, ","), " backfilled past head job ", seq,
                      " of queue ", head.queue, " and run past its estimated start ",
                      absl::FormatTime(when), ", where it then no longer fits"));
  }
}

void InvariantChecker::TrackPreemptionLoops(const Decision& decision) {
  for (const StartDecision& start : decision.start) {
    auto it = victims_of_.find(start.seq);
    if (it == victims_of_.end()) continue;
    for (int64_t victim : it->second) {
      auto waiting = unanswered_.find(victim);
      if (waiting == unanswered_.end()) continue;
      auto one = waiting->second.find(start.seq);
      if (one != waiting->second.end()) waiting->second.erase(one);
    }
    victims_of_.erase(it);
  }
  for (const PreemptDecision& p : decision.preempt) {
    std::multiset<int64_t>& waiting = unanswered_[p.victim];
    waiting.insert(p.preemptor);
    victims_of_[p.preemptor].push_back(p.victim);
    if (static_cast<int>(waiting.size()) > max_unanswered_) {
      Fail("preemption-loop", absl::StrCat("job ", p.victim, " preempted ", waiting.size(),
                                           " times by jobs that have not started since: ",
                                           absl::StrJoin(waiting, ",")));
    }
  }
}

}  // namespace dlp::server
