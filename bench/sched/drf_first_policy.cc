#include "drf_first_policy.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "server/scheduler/gpu_placement.h"
#include "server/scheduler/reservation.h"

namespace dlp::bench {
namespace {

using server::Decision;
using server::DeviceUse;
using server::PendingJob;
using server::ResourceVector;
using server::RunningJob;
using server::Snapshot;

// How many of a queue's jobs are tried in its turn before it preempts.
constexpr size_t kTries = 64;
// As dlpd's policy: a job preempted this often runs to its end.
constexpr int kMaxPreemptions = 3;

double Fraction(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

// The largest fraction of the machine's cpu, memory or gpu that `v` holds.
double Dominant(const ResourceVector& v, const ResourceVector& cap) {
  return std::max({Fraction(v.cpu_millis, cap.cpu_millis),
                   Fraction(v.memory_bytes, cap.memory_bytes),
                   Fraction(v.gpu_millis, cap.gpu_millis)});
}

// Whether `used` is above `nominal` in some resource.
bool Borrows(const ResourceVector& used, const ResourceVector& nominal) {
  return used.cpu_millis > nominal.cpu_millis || used.memory_bytes > nominal.memory_bytes ||
         used.gpu_millis > nominal.gpu_millis;
}

bool Fits(const ResourceVector& demand, const ResourceVector& free) {
  return demand.cpu_millis <= free.cpu_millis && demand.memory_bytes <= free.memory_bytes &&
         demand.gpu_millis <= free.gpu_millis;
}

}  // namespace

Decision DrfFirstPolicy::Schedule(const Snapshot& snapshot) const {
  const ResourceVector& cap = snapshot.capacity;
  const std::vector<server::GpuDevice> devices = server::DevicesOf(snapshot);
  std::map<std::string, int> weight;
  std::map<std::string, ResourceVector> nominal;
  for (const server::QueueConfig& q : snapshot.queues) {
    weight[q.name] = std::max(1, q.weight);
    nominal[q.name] = q.nominal;
  }
  auto level = [&](const std::string& queue, const ResourceVector& held) {
    auto w = weight.find(queue);
    return Dominant(held, cap) / (w == weight.end() ? 1 : w->second);
  };

  ResourceVector free = cap;
  DeviceUse use = server::UseOf(snapshot.running);
  std::map<std::string, ResourceVector> held;  // what each queue keeps (stopping jobs left out)
  for (const RunningJob& r : snapshot.running) {
    free -= r.demand;
    if (!r.stopping) held[r.queue] += r.demand;
  }
  // What runs now, less the victims chosen so far: the guarantees are about it.
  std::map<std::string, ResourceVector> running = held;
  std::map<std::string, std::vector<const PendingJob*>> waiting;
  for (const PendingJob& job : snapshot.pending) waiting[job.queue].push_back(&job);
  for (auto& [queue, jobs] : waiting) {
    std::sort(jobs.begin(), jobs.end(), [](const PendingJob* a, const PendingJob* b) {
      return a->priority != b->priority ? a->priority > b->priority : a->seq < b->seq;
    });
  }

  Decision decision;
  std::set<int64_t> victims;
  std::set<std::string> done;  // queues whose turn is over for this round
  while (true) {
    const std::string* turn = nullptr;
    double lowest = 0;
    for (const auto& [queue, jobs] : waiting) {
      if (done.contains(queue)) continue;
      const double l = level(queue, held[queue]);
      if (turn == nullptr || l < lowest) {
        turn = &queue;
        lowest = l;
      }
    }
    if (turn == nullptr) break;
    const std::string queue = *turn;
    std::vector<const PendingJob*>& jobs = waiting[queue];
    bool ran = false;
    for (size_t i = 0; i < jobs.size() && i < kTries; ++i) {
      const PendingJob& job = *jobs[i];
      if (!Fits(job.demand, free)) continue;
      auto placement = server::PlaceGpus(job.replicas, devices, use);
      if (!placement) continue;
      free -= job.demand;
      held[queue] += job.demand;
      decision.start.push_back({job.seq, std::move(*placement)});
      jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(i));
      ran = true;
      break;
    }
    if (jobs.empty()) done.insert(queue);
    if (ran) continue;
    done.insert(queue);
    if (jobs.empty()) continue;
    // Nothing of this queue fits: its first job takes from the queues that
    // would still be above the level it reaches, the furthest above first,
    // their most recently started jobs first.
    const PendingJob& head = *jobs.front();
    ResourceVector after = held[queue];
    after += head.demand;
    const double target = level(queue, after);
    std::vector<const RunningJob*> candidates;
    for (const RunningJob& r : snapshot.running) {
      if (r.queue == queue || r.stopping || !r.preemptible || victims.contains(r.seq) ||
          r.preemptions >= kMaxPreemptions) {
        continue;
      }
      if (level(r.queue, held[r.queue]) > target) candidates.push_back(&r);
    }
    std::sort(candidates.begin(), candidates.end(), [&](const RunningJob* a, const RunningJob* b) {
      const double la = level(a->queue, held[a->queue]), lb = level(b->queue, held[b->queue]);
      return la != lb ? la > lb : a->started > b->started;
    });
    ResourceVector freed = free;
    DeviceUse freed_use = use;
    std::map<std::string, ResourceVector> kept = held;
    std::vector<const RunningJob*> chosen;
    bool fits = false;
    for (const RunningJob* r : candidates) {
      ResourceVector left = kept[r->queue];
      left -= r->demand;
      if (level(r->queue, left) < target) continue;  // it would fall below the preemptor
      if (keep_guarantees_ && !Borrows(running[r->queue], nominal[r->queue])) continue;
      kept[r->queue] = left;
      freed += r->demand;
      server::fair_share::RemoveShares(freed_use, r->placement);
      chosen.push_back(r);
      DeviceUse trial = freed_use;
      fits = Fits(head.demand, freed) && server::PlaceGpus(head.replicas, devices, trial);
      if (fits) break;
    }
    if (!fits) continue;
    for (const RunningJob* r : chosen) {
      running[r->queue] -= r->demand;
      victims.insert(r->seq);
      decision.preempt.push_back({r->seq, head.seq, "preempted for weighted DRF"});
    }
    held = std::move(kept);
    held[queue] += head.demand;  // what it will hold: no other queue counts on the victims
  }
  for (const auto& [queue, jobs] : waiting) {
    int position = 0;
    for (const PendingJob* job : jobs) decision.waiting[job->seq] = {"waiting", ++position};
  }
  return decision;
}

}  // namespace dlp::bench
