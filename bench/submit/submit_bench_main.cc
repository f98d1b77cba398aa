// dlp-bench-submit: durable submissions per second through the library.
//
// A fresh dlpd in a temporary state folder; a blocker job takes the whole
// machine, so the benchmark's jobs stay queued and the figure measures the
// submit path (HTTP, validation, SQLite commit with fsync before the ack) rather
// than process start-up. Each repetition submits --jobs jobs one after another;
// a submit counts once dlpd has acknowledged it, i.e. after its commit.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "dlp/dlp.h"

namespace {

struct Flags {
  int jobs = 1000;
  int repetitions = 3;
  std::string dlpd;  // empty: found like the local backend finds it
};

bool ParseFlags(int argc, char** argv, Flags& flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--jobs" && has_value) {
      flags.jobs = std::atoi(argv[++i]);
    } else if (arg == "--repetitions" && has_value) {
      flags.repetitions = std::atoi(argv[++i]);
    } else if (arg == "--dlpd" && has_value) {
      flags.dlpd = argv[++i];
    } else {
      std::fprintf(stderr, "usage: dlp-bench-submit [--jobs N] [--repetitions R] [--dlpd PATH]\n");
      return false;
    }
  }
  return flags.jobs > 0 && flags.repetitions > 0;
}

dlp::JobSpec TrivialJob(const std::string& name, int64_t cpu_millis, const char* command) {
  dlp::JobSpec spec;
  spec.name = name;
  spec.workdir = "/";
  dlp::ReplicaSpec worker;
  worker.role = "worker";
  worker.command = {"sh", "-c", command};
  worker.resources.cpu_millis = cpu_millis;
  spec.replicas.push_back(worker);
  return spec;
}

int Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "dlp-bench-submit: %s: %s\n", what, std::string(status.message()).c_str());
  return 1;
}

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(p * static_cast<double>(values.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) return 2;
  char pattern[] = "/tmp/dlp-bench-submit-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return 1;
  const std::string state_dir = std::string(pattern) + "/state";
  dlp::Context context{"bench", "local", {{"state-dir", state_dir}, {"dlpd", flags.dlpd}}};
  auto backend = dlp::CreateBackend(context);
  if (!backend.ok()) return Fail("backend", backend.status());
  dlp::Client client(context, std::move(*backend));
  dlp::LocalServerOptions server;
  server.state_dir = state_dir;
  server.dlpd_path = flags.dlpd;
  auto info = dlp::StartLocalServer(server);
  if (!info.ok()) return Fail("starting dlpd", info.status());

  // The blocker asks for every CPU dlpd schedules (halving until it fits).
  int64_t cpus = std::max(1u, std::thread::hardware_concurrency()) * 1000;
  absl::StatusOr<dlp::Job> blocker;
  for (; cpus >= 1000; cpus /= 2) {
    blocker = client.Submit(TrivialJob("blocker", cpus, "sleep 3600"));
    if (blocker.ok() || !absl::IsInvalidArgument(blocker.status())) break;
  }
  if (!blocker.ok()) return Fail("submitting the blocker job", blocker.status());
  const dlp::JobSpec spec = TrivialJob("bench", cpus, "true");

  std::printf("# durable submits through libdlp: %d jobs x %d repetitions, dlpd %s at %s\n",
              flags.jobs, flags.repetitions, info->version.c_str(), info->address.c_str());
  std::printf("%5s %7s %9s %11s %8s %8s\n", "rep", "jobs", "seconds", "submits/s", "p50 ms",
              "p99 ms");
  std::vector<double> rates;
  for (int rep = 1; rep <= flags.repetitions; ++rep) {
    std::vector<double> latencies;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < flags.jobs; ++i) {
      const auto before = std::chrono::steady_clock::now();
      auto job = client.Submit(spec);
      if (!job.ok()) return Fail("submit", job.status());
      latencies.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before)
              .count());
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(flags.jobs / seconds);
    std::printf("%5d %7d %9.3f %11.1f %8.2f %8.2f\n", rep, flags.jobs, seconds, rates.back(),
                Percentile(latencies, 0.5), Percentile(latencies, 0.99));
  }
  std::printf("median submits/s: %.1f\n", Percentile(rates, 0.5));

  // Leave nothing behind: the blocker's processes, dlpd, the state folder.
  (void)client.Cancel(blocker->id);
  dlp::WaitOptions wait;
  wait.timeout = absl::Seconds(30);
  (void)client.Wait(blocker->id, wait);
  absl::Status stopped = dlp::StopLocalServer(server);
  std::filesystem::remove_all(pattern);
  return stopped.ok() ? 0 : Fail("stopping dlpd", stopped);
}
