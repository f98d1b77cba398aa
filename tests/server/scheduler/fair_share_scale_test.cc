// The default policy on a large snapshot: 10,000 waiting jobs in 100 queues
// (10 cohorts) on a full 256-GPU machine. Prints the decision latency
// (p50/p99 over 20 calls, in this thread's CPU time so that other processes
// on the machine do not count); asserts only that the decision is consistent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>

#include "policy_test_util.h"
#include "server/scheduler/fair_share_policy.h"

namespace dlp::server {
namespace {

using namespace dlp::server::testing;  // NOLINT

Snapshot Large(uint32_t seed) {
  std::mt19937 rng(seed);
  Snapshot s = Machine(4096, 256);
  for (int q = 0; q < 100; ++q) {
    s.queues.push_back(
        Queue(absl::StrCat("q", q), absl::StrCat("c", q / 10), Res(40, 2), Res(40, 4), 1 + q % 3));
  }
  int device = 0;
  for (int64_t seq = 1; device < 256; ++seq) {
    const int gpus = std::min<int>(1 + static_cast<int>(rng() % 4), 256 - device);
    std::vector<std::string> devices;
    for (int i = 0; i < gpus; ++i) devices.push_back(absl::StrCat(device++));
    s.running.push_back(Running(100000 + seq, absl::StrCat("q", rng() % 100), 2, devices,
                                static_cast<int>(rng() % 4),
                                absl::Minutes(static_cast<int>(rng() % 60)),
                                rng() % 2 ? absl::Hours(2) : absl::ZeroDuration()));
  }
  for (int64_t seq = 1; seq <= 10000; ++seq) {
    PendingJob job = Job(seq, absl::StrCat("q", rng() % 100), 1 + rng() % 8, rng() % 5,
                         static_cast<int>(rng() % 4),
                         rng() % 2 ? absl::Minutes(1 + rng() % 120) : absl::ZeroDuration());
    job.submitted = kNow - absl::Minutes(static_cast<int>(rng() % 120));
    s.pending.push_back(std::move(job));
  }
  return s;
}

TEST(FairShareScaleTest, TenThousandWaitingJobsInAHundredQueues) {
  constexpr uint32_t kSeed = 42;
  const Snapshot s = Large(kSeed);
  FairSharePolicy policy;
  std::vector<double> ms;
  Decision d;
  for (int i = 0; i < 20; ++i) {
    d = Decision();  // the previous one is freed outside the measure
    timespec start, end;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    d = policy.Schedule(s);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
    ms.push_back((end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "seed %u: %zu pending, %zu running, %zu queues: %zu started, %zu preempted; "
      "Schedule p50 %.2f ms, p99 %.2f ms\n",
      kSeed, s.pending.size(), s.running.size(), s.queues.size(), d.start.size(), d.preempt.size(),
      ms[ms.size() / 2], ms[ms.size() * 99 / 100]);
  ExpectConsistent(s, d);
}

}  // namespace
}  // namespace dlp::server
