#include "server/scheduler/queue_usage.h"

#include <algorithm>
#include <map>

namespace dlp::server {
namespace {

ResourceVector Excess(const ResourceVector& used, const ResourceVector& nominal) {
  ResourceVector out;
  out.cpu_millis = std::max<int64_t>(0, used.cpu_millis - nominal.cpu_millis);
  out.memory_bytes = std::max<int64_t>(0, used.memory_bytes - nominal.memory_bytes);
  out.gpu_millis = std::max<int64_t>(0, used.gpu_millis - nominal.gpu_millis);
  return out;
}

double Fraction(int64_t part, int64_t whole) {
  return whole <= 0 ? 0 : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

std::vector<QueueStatus> QueueStatuses(const Snapshot& snapshot) {
  std::vector<QueueStatus> out;
  std::map<std::string, size_t> index;
  auto status_of = [&](const std::string& name) -> QueueStatus& {
    auto it = index.find(name);
    if (it != index.end()) return out[it->second];
    index[name] = out.size();
    out.push_back({ImplicitQueue(name, snapshot.capacity)});
    return out.back();
  };
  for (const QueueConfig& q : snapshot.queues) {
    index[q.name] = out.size();
    out.push_back({q});
  }
  for (const RunningJob& job : snapshot.running) {
    QueueStatus& s = status_of(job.queue);
    s.used += job.demand;
    ++s.running;
  }
  for (const PendingJob& job : snapshot.pending) ++status_of(job.queue).pending;
  for (QueueStatus& s : out) {
    s.borrowed = Excess(s.used, s.config.nominal);
    const ResourceVector& c = snapshot.capacity;
    const double dominant = std::max({Fraction(s.borrowed.cpu_millis, c.cpu_millis),
                                      Fraction(s.borrowed.memory_bytes, c.memory_bytes),
                                      Fraction(s.borrowed.gpu_millis, c.gpu_millis)});
    s.share = dominant / std::max(1, s.config.weight);
  }
  return out;
}

}  // namespace dlp::server
