#include "strict_fifo_policy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "server/scheduler/gpu_placement.h"

namespace dlp::bench {

using server::Decision;
using server::DeviceUse;
using server::GpuDevice;
using server::PendingJob;
using server::ResourceVector;
using server::RunningJob;
using server::Snapshot;

Decision StrictFifoPolicy::Schedule(const Snapshot& snapshot) const {
  std::vector<const PendingJob*> order;
  for (const PendingJob& job : snapshot.pending) order.push_back(&job);
  std::sort(order.begin(), order.end(),
            [](const PendingJob* a, const PendingJob* b) { return a->seq < b->seq; });
  ResourceVector used;
  for (const RunningJob& job : snapshot.running) used += job.demand;
  DeviceUse use = server::UseOf(snapshot.running);
  const std::vector<GpuDevice> devices = server::DevicesOf(snapshot);
  const ResourceVector& cap = snapshot.capacity;
  Decision decision;
  int64_t head = 0;
  int position = 0;
  for (const PendingJob* job : order) {
    if (head == 0) {
      ResourceVector after = used;
      after += job->demand;
      if (after.cpu_millis <= cap.cpu_millis && after.memory_bytes <= cap.memory_bytes &&
          after.gpu_millis <= cap.gpu_millis) {
        if (auto placement = server::PlaceGpus(job->replicas, devices, use)) {
          used = after;
          decision.start.push_back({job->seq, std::move(*placement)});
          continue;
        }
      }
      head = job->seq;
      decision.waiting[job->seq] = {"waiting for resources", ++position};
      continue;
    }
    decision.waiting[job->seq] = {absl::StrCat("waiting behind job ", head), ++position};
  }
  return decision;
}

}  // namespace dlp::bench
