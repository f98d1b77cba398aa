#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "dlp/profile.h"
#include "server/api/monitor.h"
#include "server/monitor/usage_sampler.h"
#include "server/support/log.h"

namespace dlp::server {
namespace {

constexpr absl::Duration kSampleEvery = absl::Seconds(2);
constexpr int kKeepPerReplica = 150;  // ~5 minutes at kSampleEvery
constexpr std::array<double, 10> kBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025,
                                             0.05,  0.1,    0.25,  0.5,  1.0};

struct Histogram {
  std::mutex mu;
  std::array<uint64_t, kBuckets.size()> counts{};  // cumulative on output
  uint64_t count = 0;
  double sum = 0;
};

Histogram& SubmitLatency() {
  static Histogram* h = new Histogram();
  return *h;
}

std::string Label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string Number(double v) { return absl::StrFormat("%.17g", v); }

}  // namespace

void ObserveSubmitLatency(absl::Duration latency) {
  Histogram& h = SubmitLatency();
  const double s = absl::ToDoubleSeconds(latency);
  std::lock_guard<std::mutex> lock(h.mu);
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (s <= kBuckets[i]) ++h.counts[i];
  }
  ++h.count;
  h.sum += s;
}

std::string PrometheusText(const ApiContext& ctx, const std::string& tenant,
                           const std::map<std::string, std::vector<ReplicaUsage>>& usage) {
  std::string out;
  std::map<std::string, int> by_state;
  for (JobState s : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                     JobState::kFailed, JobState::kCancelled}) {
    by_state[std::string(JobStateName(s))] = 0;
  }
  std::map<std::string, int> queued;
  std::set<std::string> visible;
  absl::StatusOr<std::vector<Job>> jobs = ctx.controller->List(ListFilter{}, tenant);
  if (jobs.ok()) {
    for (const Job& j : *jobs) {
      ++by_state[std::string(JobStateName(j.state))];
      if (j.state == JobState::kQueued) ++queued[j.queue];
      if (!queued.count(j.queue)) queued[j.queue] = 0;
      visible.insert(j.id);
    }
  }
  out += "# HELP dlp_jobs Jobs known to dlpd, by state.\n# TYPE dlp_jobs gauge\n";
  for (const auto& [state, n] : by_state) {
    absl::StrAppend(&out, "dlp_jobs{state=\"", state, "\"} ", n, "\n");
  }
  out += "# HELP dlp_queue_length Jobs waiting in each queue.\n# TYPE dlp_queue_length gauge\n";
  for (const auto& [queue, n] : queued) {
    absl::StrAppend(&out, "dlp_queue_length{queue=\"", Label(queue), "\"} ", n, "\n");
  }
  {
    Histogram& h = SubmitLatency();
    std::lock_guard<std::mutex> lock(h.mu);
    out += "# HELP dlp_submit_latency_seconds Time to accept a job (POST /v1/jobs, durably "
           "stored).\n# TYPE dlp_submit_latency_seconds histogram\n";
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      absl::StrAppend(&out, "dlp_submit_latency_seconds_bucket{le=\"", Number(kBuckets[i]),
                      "\"} ", h.counts[i], "\n");
    }
    absl::StrAppend(&out, "dlp_submit_latency_seconds_bucket{le=\"+Inf\"} ", h.count, "\n");
    absl::StrAppend(&out, "dlp_submit_latency_seconds_sum ", Number(h.sum), "\n");
    absl::StrAppend(&out, "dlp_submit_latency_seconds_count ", h.count, "\n");
  }
  struct Gauge {
    const char* name;
    const char* help;
    double (*get)(const ReplicaUsage&);
  };
  const Gauge gauges[] = {
      {"dlp_replica_cpu_percent", "CPU use of a running replica's process group (100 = one core).",
       [](const ReplicaUsage& u) { return u.cpu_percent; }},
      {"dlp_replica_rss_bytes", "Resident memory of a running replica's process group.",
       [](const ReplicaUsage& u) { return static_cast<double>(u.rss_bytes); }},
      {"dlp_replica_gpu_utilization_percent", "Utilisation of the GPU a replica runs on (NVML).",
       [](const ReplicaUsage& u) { return u.gpu_util_percent; }},
      {"dlp_replica_gpu_memory_bytes", "GPU memory a replica's processes hold (NVML).",
       [](const ReplicaUsage& u) { return static_cast<double>(u.gpu_memory_bytes); }},
  };
  for (const Gauge& g : gauges) {
    absl::StrAppend(&out, "# HELP ", g.name, " ", g.help, "\n# TYPE ", g.name, " gauge\n");
    for (const auto& [job, samples] : usage) {
      if (!visible.count(job)) continue;
      for (const ReplicaUsage& u : samples) {
        const double v = g.get(u);
        if (v < 0) continue;  // no GPU data
        absl::StrAppend(&out, g.name, "{job=\"", Label(job), "\",replica=\"", Label(u.replica),
                        "\"} ", Number(v), "\n");
      }
    }
  }
  return out;
}

void InstallMonitorRoutes(httplib::Server& server, const ApiContext& context) {
  const ApiContext* ctx = &context;
  auto sampler = std::make_shared<UsageSampler>(
      [ctx] { return ctx->controller->RunningJobs(); },
      kSampleEvery, kKeepPerReplica);
  // Samples go to the store too, so a job's usage outlives the job and dlpd.
  sampler->SetSink([ctx](const std::map<std::string, std::vector<ReplicaUsage>>& round) {
    absl::Status stored = ctx->controller->RecordUsage(round, kKeepPerReplica);
    if (!stored.ok()) Log(absl::StrCat("storing usage samples: ", stored.ToString()));
  });
  sampler->Start();

  server.Get(R"(/v1/jobs/([^/]+)/usage)",
             [ctx](const httplib::Request& req, httplib::Response& res) {
               absl::StatusOr<std::vector<ReplicaUsage>> usage =
                   ctx->controller->Usage(req.matches[1], TenantOf(*ctx, req));
               if (!usage.ok()) return SendError(res, usage.status());
               nlohmann::json list = nlohmann::json::array();
               for (const ReplicaUsage& u : *usage) {
                 nlohmann::json j = {{"replica", u.replica},
                                     {"pid", u.pid},
                                     {"cpuPercent", u.cpu_percent},
                                     {"rssBytes", u.rss_bytes},
                                     {"gpuUtilPercent", nullptr},
                                     {"gpuMemoryBytes", nullptr},
                                     {"time", absl::FormatTime(absl::RFC3339_full, u.time,
                                                               absl::UTCTimeZone())}};
                 if (u.gpu_util_percent >= 0) j["gpuUtilPercent"] = u.gpu_util_percent;
                 if (u.gpu_memory_bytes >= 0) j["gpuMemoryBytes"] = u.gpu_memory_bytes;
                 list.push_back(j);
               }
               res.status = 200;
               res.set_content(nlohmann::json({{"replicas", list}}).dump(), "application/json");
             });
  server.Get("/metrics", [ctx, sampler](const httplib::Request& req, httplib::Response& res) {
    res.status = 200;
    res.set_content(PrometheusText(*ctx, TenantOf(*ctx, req), sampler->LatestAll()),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
}

}  // namespace dlp::server
