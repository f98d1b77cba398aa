#include "workload.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"

namespace dlp::bench {
namespace {

using server::PendingJob;
using server::QueueConfig;
using server::ResourceVector;
using server::SimJob;

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int kGpus = 256;

// What `gpu_millis` of GPUs come with: 8 CPUs and 64 GiB per GPU.
ResourceVector WithHost(int64_t gpu_millis) {
  return {std::max<int64_t>(1000, gpu_millis * 8),
          std::max<int64_t>(gpu_millis, 250) * 64 * kGi / 1000, gpu_millis};
}

struct Tenant {
  const char* name;
  const char* queue;
  int weight;
  double share_of_jobs;
};
constexpr Tenant kTenants[] = {{"alice", "vision", 3, 0.35},
                               {"bob", "nlp", 2, 0.30},
                               {"carol", "speech", 2, 0.20},
                               {"dave", "research", 1, 0.15}};

}  // namespace

server::SimConfig Cluster() {
  server::SimConfig config;
  config.capacity = {kGpus / 8 * 128 * 1000, int64_t{kGpus / 8} * 1024 * kGi, kGpus * 1000};
  int weights = 0;
  for (const Tenant& t : kTenants) weights += t.weight;
  for (const Tenant& t : kTenants) {
    const ResourceVector& c = config.capacity;
    QueueConfig q{
        .name = t.queue,
        .cohort = "lab",
        .nominal = {c.cpu_millis * t.weight / weights, c.memory_bytes / weights * t.weight,
                    c.gpu_millis * t.weight / weights}};
    q.weight = t.weight;
    config.queues.push_back(q);
    config.tenant_weights[t.name] = t.weight;
  }
  config.cycle = absl::Minutes(1);
  config.grace = absl::Seconds(30);
  config.window = absl::Hours(6);
  return config;
}

std::vector<SimJob> Workload(uint64_t seed, int jobs, double load, int max_gang_gpus) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::lognormal_distribution<double> minutes(std::log(30.0), 1.6);
  std::vector<int> sizes = {1, 2, 4, 8, 16, 32, 64};
  std::erase_if(sizes, [&](int s) { return s > std::max(1, max_gang_gpus); });
  std::vector<double> size_weights;
  for (int s : sizes) size_weights.push_back(1.0 / s);
  std::discrete_distribution<size_t> size_of(size_weights.begin(), size_weights.end());
  std::vector<double> tenant_weights;
  for (const Tenant& t : kTenants) tenant_weights.push_back(t.share_of_jobs);
  std::discrete_distribution<size_t> tenant_of(tenant_weights.begin(), tenant_weights.end());

  std::vector<SimJob> out;
  double gpu_seconds = 0;
  for (int i = 0; i < jobs; ++i) {
    SimJob sim;
    PendingJob& job = sim.job;
    const Tenant& tenant = kTenants[tenant_of(rng)];
    job.seq = i + 1;
    job.tenant = tenant.name;
    job.queue = tenant.queue;
    const double p = unit(rng);
    job.priority = p < 0.80 ? 0 : p < 0.95 ? 10 : 100;
    job.preemptible = unit(rng) >= 0.10;
    int64_t gpu =
        unit(rng) < 0.10 ? (unit(rng) < 0.5 ? 250 : 500) : int64_t{sizes[size_of(rng)]} * 1000;
    const int64_t per_replica = std::min<int64_t>(gpu, 8000);
    for (int64_t r = 0; r * per_replica < gpu; ++r) {
      job.replicas.push_back({absl::StrCat("worker-", r), per_replica, ""});
      job.demand += WithHost(per_replica);
    }
    sim.runtime = absl::Seconds(std::round(60 * std::clamp(minutes(rng), 1.0, 3 * 24 * 60.0)));
    if (unit(rng) < 0.75) {
      job.time_limit =
          absl::Seconds(std::ceil((1.1 + 1.9 * unit(rng)) * absl::ToDoubleSeconds(sim.runtime)));
    }
    gpu_seconds += gpu / 1000.0 * absl::ToDoubleSeconds(sim.runtime);
    out.push_back(std::move(sim));
  }
  // Poisson arrivals over the span that makes the offered load `load`.
  const double span_s = gpu_seconds / (kGpus * load);
  std::exponential_distribution<double> gap(jobs / span_s);
  absl::Time at = absl::FromUnixSeconds(1'767'225'600);  // 2026-01-01
  for (SimJob& sim : out) {
    at += absl::Seconds(std::round(gap(rng)));
    sim.job.submitted = at;
  }
  return out;
}

std::vector<SimJob> WithElasticShare(std::vector<SimJob> jobs, double share, uint64_t seed,
                                     bool elastic) {
  std::mt19937_64 rng(seed ^ 0xe1a571c);
  std::uniform_real_distribution<double> unit(0, 1);
  for (SimJob& sim : jobs) {
    PendingJob& job = sim.job;
    const int64_t gpus = job.demand.gpu_millis / 1000;
    if (job.demand.gpu_millis % 1000 != 0 || gpus < 4 || unit(rng) >= share) continue;
    job.replicas.clear();
    job.demand = {};
    for (int64_t r = 0; r < gpus; ++r) {
      job.replicas.push_back({absl::StrCat("worker-", r), 1000, ""});
      job.demand += WithHost(1000);
    }
    if (!elastic) continue;
    job.elastic = {.role = "worker",
                   .min = static_cast<int>(gpus / 4),
                   .max = static_cast<int>(gpus),
                   .per_replica = WithHost(1000),
                   .gpu_millis = 1000};
  }
  return jobs;
}

}  // namespace dlp::bench
