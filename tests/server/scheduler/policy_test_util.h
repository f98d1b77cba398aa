// Snapshots for the scheduling policy's tests: machines, queues, waiting and
// running jobs in a few words, and a check that a Decision is self-consistent.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/fair_share_policy.h"
#include "server/scheduler/gpu_placement.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server::testing {

inline const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

inline ResourceVector Res(int64_t cpus, int64_t gpus = 0) { return {cpus * 1000, 0, gpus * 1000}; }

inline QueueConfig Queue(std::string name, std::string cohort, ResourceVector nominal,
                         std::optional<ResourceVector> borrowing_limit = std::nullopt,
                         int weight = 1) {
  QueueConfig q;
  q.name = std::move(name);
  q.cohort = std::move(cohort);
  q.nominal = nominal;
  q.borrowing_limit = borrowing_limit;
  q.weight = weight;
  return q;
}

// A gang of `gpus` replicas of one GPU each (or one CPU-only replica).
inline PendingJob Job(int64_t seq, std::string queue, int64_t cpus, int64_t gpus = 0,
                      int priority = 0, absl::Duration time_limit = absl::ZeroDuration()) {
  PendingJob job{.seq = seq,
                 .tenant = "t",
                 .queue = std::move(queue),
                 .priority = priority,
                 .demand = Res(cpus, gpus),
                 .submitted = kNow,
                 .time_limit = time_limit};
  for (int64_t i = 0; i < gpus; ++i) {
    job.replicas.push_back({absl::StrCat("worker-", i), 1000, ""});
  }
  return job;
}

// Running since `ago`, on the GPUs `devices` (one replica each).
inline RunningJob Running(int64_t seq, std::string queue, int64_t cpus,
                          std::vector<std::string> devices = {}, int priority = 0,
                          absl::Duration ago = absl::Minutes(1),
                          absl::Duration time_limit = absl::ZeroDuration()) {
  RunningJob job{.seq = seq,
                 .tenant = "t",
                 .queue = std::move(queue),
                 .priority = priority,
                 .demand = Res(cpus, static_cast<int64_t>(devices.size())),
                 .started = kNow - ago,
                 .time_limit = time_limit};
  for (size_t i = 0; i < devices.size(); ++i) {
    job.placement.push_back({absl::StrCat("worker-", i), {{devices[i], 1000}}});
  }
  return job;
}

inline Snapshot Machine(int64_t cpus, int64_t gpus = 0) {
  Snapshot s;
  s.now = kNow;
  s.capacity = Res(cpus, gpus);
  return s;
}

inline std::vector<int64_t> Started(const Decision& d) {
  std::vector<int64_t> out;
  for (const StartDecision& s : d.start) out.push_back(s.seq);
  return out;
}

inline std::vector<int64_t> Victims(const Decision& d) {
  std::vector<int64_t> out;
  for (const PreemptDecision& p : d.preempt) out.push_back(p.victim);
  return out;
}

// Never over the machine (running, stopping and started together), no device
// over one GPU, no victim started or stopping already, every pending job
// either started or explained, once.
inline void ExpectConsistent(const Snapshot& s, const Decision& d) {
  ResourceVector used;
  DeviceUse devices = UseOf(s.running);
  for (const RunningJob& r : s.running) used += r.demand;
  std::set<int64_t> started;
  for (const StartDecision& start : d.start) {
    EXPECT_TRUE(started.insert(start.seq).second) << "started twice: " << start.seq;
    for (const PendingJob& p : s.pending) {
      if (p.seq == start.seq) used += start.size > 0 ? AtSize(p, start.size).demand : p.demand;
    }
    for (const ReplicaPlacement& p : start.placement) {
      for (const GpuShare& g : p.gpus) devices[g.device] += g.millis;
    }
    EXPECT_FALSE(d.waiting.contains(start.seq)) << start.seq;
  }
  AddGrowths(s.running, d.resize, used, devices);
  EXPECT_LE(used.cpu_millis, s.capacity.cpu_millis);
  EXPECT_LE(used.gpu_millis, s.capacity.gpu_millis);
  EXPECT_LE(used.memory_bytes, s.capacity.memory_bytes);
  for (const auto& [device, millis] : devices) EXPECT_LE(millis, 1000) << device;
  std::set<int64_t> victims;
  for (const PreemptDecision& p : d.preempt) {
    EXPECT_TRUE(victims.insert(p.victim).second) << "victim twice: " << p.victim;
    for (const RunningJob& r : s.running) {
      if (r.seq == p.victim) {
        EXPECT_FALSE(r.stopping) << p.victim;
        EXPECT_TRUE(r.preemptible) << p.victim;
      }
    }
    EXPECT_FALSE(started.contains(p.preemptor)) << p.preemptor;
  }
  EXPECT_EQ(started.size() + d.waiting.size(), s.pending.size());
}

// The default policy's decision, checked for consistency.
inline Decision Decide(const Snapshot& s) {
  Decision d = FairSharePolicy().Schedule(s);
  ExpectConsistent(s, d);
  return d;
}

}  // namespace dlp::server::testing
