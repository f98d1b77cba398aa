// dlp-bench-kueue-baseline: Kueue's scheduler baseline workload (see
// kueue_workload.h) against a real dlpd through its API, each workload a real
// process that sleeps its runtime.
//
//   dlp-bench-kueue-baseline [--scale S] [--threads N] [--dlpd PATH] [--dlp PATH] [--keep]
//   dlp-bench-kueue-baseline --virtual [--scale S]
//
// Starts `dlpd --cpus 600` in a temporary state folder, configures the 30
// queues (nominal 20 CPUs, borrowing limit 100, in 5 cohorts) when dlpd has
// configured queues (`dlp admin queue create`), else submits to implicit
// queues q0..q29 of one 600-CPU pool. N threads submit on Kueue's arrival
// schedule; then it waits for every job to end and prints wall time, usage
// (mean fraction of the 600 CPUs held by running jobs, from their started and
// finished times), mean time to admission per class (started - created) and
// failed submissions, next to Kueue's published figures. With --virtual it
// runs no dlpd: the same workload goes through dlpd's policy in virtual time
// (kueue_virtual.h), the bound the real run's figures are read against.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "dlp/dlp.h"
#include "kueue_virtual.h"
#include "kueue_workload.h"

namespace {

using dlp::bench::Arrival;
using dlp::bench::WorkloadClass;

struct Flags {
  double scale = 1.0;
  int threads = 48;
  std::string dlpd, dlp;  // empty: next to this program
  bool keep = false;
  bool virtual_time = false;
  double preempt_exempt_s = 0;  // dlpd --preempt-exempt-time
};

std::string Sibling(const char* name) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / name).string();
}

bool ParseFlags(int argc, char** argv, Flags& f) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool value = i + 1 < argc;
    if (arg == "--scale" && value) {
      f.scale = std::atof(argv[++i]);
    } else if (arg == "--threads" && value) {
      f.threads = std::atoi(argv[++i]);
    } else if (arg == "--dlpd" && value) {
      f.dlpd = argv[++i];
    } else if (arg == "--dlp" && value) {
      f.dlp = argv[++i];
    } else if (arg == "--keep") {
      f.keep = true;
    } else if (arg == "--virtual") {
      f.virtual_time = true;
    } else if (arg == "--preempt-exempt-time" && value) {
      f.preempt_exempt_s = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: dlp-bench-kueue-baseline [--scale S] [--threads N] [--dlpd PATH] "
                   "[--dlp PATH] [--keep] [--preempt-exempt-time SECONDS]\n"
                   "       dlp-bench-kueue-baseline --virtual [--scale S] "
                   "[--preempt-exempt-time SECONDS]\n");
      return false;
    }
  }
  if (f.dlpd.empty()) f.dlpd = Sibling("dlpd");
  if (f.dlp.empty()) f.dlp = Sibling("dlp");
  return f.scale > 0 && f.threads > 0 && f.preempt_exempt_s >= 0;
}

std::string ReadTrimmed(const std::string& path) {
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return std::string(absl::StripAsciiWhitespace(s));
}

// Runs `argv` with DLP_CONFIG=config; true on exit status 0. Output goes to `log`.
bool RunTool(const std::vector<std::string>& argv, const std::string& config,
             const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("DLP_CONFIG", config.c_str(), 1);
    if (freopen(log.c_str(), "a", stdout) == nullptr || dup2(1, 2) < 0) _exit(127);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

// Configures the 30 queues in their cohorts (`dlp admin queue create`).
// False, with nothing configured, against a dlpd from before queues: the
// bench then runs on implicit queues and says so.
bool ConfigureQueues(const Flags& flags, const std::string& config, const std::string& log) {
  for (int q = 0; q < dlp::bench::kCohorts * dlp::bench::kQueuesPerCohort; ++q) {
    const bool ok = RunTool(
        {flags.dlp, "admin", "queue", "create", dlp::bench::QueueName(q), "--cohort",
         dlp::bench::CohortName(q), "--nominal", absl::StrCat("cpu=", dlp::bench::kNominalCpus),
         "--borrowing-limit", absl::StrCat("cpu=", dlp::bench::kBorrowingLimitCpus)},
        config, log);
    if (!ok) {
      if (q > 0)
        std::fprintf(stderr, "queue %d of 30 could not be created: see %s\n", q, log.c_str());
      return false;
    }
  }
  return true;
}

// "72 s: 12427 queued, 103 running": from the queues' standings where the
// queues are configured, else from the full lists.
void ProgressLine(dlp::Client& client, bool quotas,
                  const absl::StatusOr<std::vector<dlp::Job>>& queued,
                  const absl::StatusOr<std::vector<dlp::Job>>& running, double at_s) {
  size_t queued_count = queued.ok() ? queued->size() : 0;
  size_t running_count = running.ok() ? running->size() : 0;
  if (quotas) {
    auto usages = client.QueueUsages();
    queued_count = running_count = 0;
    for (const dlp::QueueUsage& u : usages.ok() ? *usages : std::vector<dlp::QueueUsage>{}) {
      queued_count += static_cast<size_t>(u.pending);
      running_count += static_cast<size_t>(u.running);
    }
  }
  std::fprintf(stderr, "%.0f s: %zu queued, %zu running\n", at_s, queued_count, running_count);
}

dlp::JobSpec SpecOf(const WorkloadClass& k, int queue) {
  dlp::JobSpec spec;
  spec.name = k.name;
  spec.queue = dlp::bench::QueueName(queue);
  spec.priority = k.priority;
  spec.workdir = "/tmp";
  dlp::ReplicaSpec r;
  r.role = "worker";
  r.command = {"sleep", absl::StrFormat("%g", absl::ToDoubleSeconds(k.runtime))};
  r.resources.cpu_millis = int64_t{k.cpus} * 1000;
  spec.replicas.push_back(r);
  return spec;
}

struct Submitted {
  std::string id;  // empty: the submission failed
  std::string error;
  double late_s = 0;  // how far behind its arrival time the submit began
};

std::string LoadAverage() { return ReadTrimmed("/proc/loadavg"); }

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) return 2;
  if (flags.virtual_time) {
    return dlp::bench::RunKueueBaselineInVirtualTime(
        flags.scale, absl::Seconds(flags.preempt_exempt_s));
  }
  char pattern[] = "/tmp/dlp-bench-kueue-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return 1;
  const std::string tmp = pattern, state = tmp + "/state";
  std::filesystem::create_directories(state);
  const std::string exempt = absl::StrCat(flags.preempt_exempt_s);
  const pid_t dlpd = fork();
  if (dlpd == 0) {
    if (freopen((tmp + "/dlpd.out").c_str(), "w", stdout) == nullptr || dup2(1, 2) < 0) _exit(127);
    execl(flags.dlpd.c_str(), flags.dlpd.c_str(), "--state-dir", state.c_str(), "--listen",
          "127.0.0.1:0", "--cpus", std::to_string(dlp::bench::kCapacityCpus).c_str(),
          "--preempt-exempt-time", exempt.c_str(), nullptr);
    _exit(127);
  }
  std::string addr, token;
  for (int i = 0; i < 600 && (addr.empty() || token.empty()); ++i) {
    absl::SleepFor(absl::Milliseconds(50));  // dlpd writes these once it listens
    addr = ReadTrimmed(state + "/dlpd.addr");
    token = ReadTrimmed(state + "/dlpd.token");
  }
  auto stop_dlpd = [&] {
    kill(dlpd, SIGTERM);
    waitpid(dlpd, nullptr, 0);
    if (!flags.keep) std::filesystem::remove_all(tmp);
  };
  if (addr.empty() || token.empty()) {
    std::fprintf(stderr, "dlpd did not start: see %s/dlpd.out\n", tmp.c_str());
    flags.keep = true;
    stop_dlpd();
    return 1;
  }
  const std::string config = tmp + "/config.yaml";
  std::ofstream(config) << "current-context: bench\ncontexts:\n  - name: bench\n"
                        << "    backend: remote\n    server: http://" << addr
                        << "\n    token: " << token << "\n";
  const bool quotas = ConfigureQueues(flags, config, tmp + "/queues.log");
  dlp::Context context{"bench", "remote", {{"server", "http://" + addr}, {"token", token}}};
  auto backend = dlp::CreateBackend(context);
  if (!backend.ok()) {
    std::fprintf(stderr, "%s\n", std::string(backend.status().message()).c_str());
    stop_dlpd();
    return 1;
  }
  dlp::Client client(context, std::move(*backend));

  const std::vector<WorkloadClass> classes = dlp::bench::KueueBaselineClasses();
  const std::vector<Arrival> arrivals = dlp::bench::KueueBaselineArrivals(classes, flags.scale);
  std::vector<dlp::JobSpec> specs;  // by queue * classes + class
  for (int q = 0; q < dlp::bench::kCohorts * dlp::bench::kQueuesPerCohort; ++q) {
    for (const WorkloadClass& k : classes) specs.push_back(SpecOf(k, q));
  }
  std::printf(
      "# Kueue scheduler baseline: %zu jobs (scale %g), dlpd --cpus %d "
      "--preempt-exempt-time %s at %s, %s, %d submitting threads, load average %s\n",
      arrivals.size(), flags.scale, dlp::bench::kCapacityCpus, exempt.c_str(),
      addr.c_str(),
      quotas ? "30 queues with quotas (nominal 20, borrowing limit 100) in 5 cohorts"
             : "implicit queues q0..q29 in one pool (this dlpd has no configured queues)",
      flags.threads, LoadAverage().c_str());
  std::fflush(stdout);

  std::vector<Submitted> submitted(arrivals.size());
  std::atomic<size_t> next{0};
  const absl::Time start = absl::Now();
  std::vector<std::thread> threads;
  for (int t = 0; t < flags.threads; ++t) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < arrivals.size(); i = next++) {
        const Arrival& a = arrivals[i];
        absl::SleepFor(start + a.at - absl::Now());  // the arrival schedule itself
        submitted[i].late_s = absl::ToDoubleSeconds(absl::Now() - (start + a.at));
        auto job = client.Submit(specs[a.queue * classes.size() + a.klass]);
        if (job.ok()) {
          submitted[i].id = job->id;
        } else {
          submitted[i].error = std::string(job.status().message());
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double submit_s = absl::ToDoubleSeconds(absl::Now() - start);

  // Until nothing is queued or running. Twice a second the newest job of each
  // state is enough to tell. The observer's polling is not part of Kueue's
  // workload: the progress line every 10 s counts from the queues' standings
  // (dlpd's memory), where listing the 12,000 queued jobs (read from SQLite,
  // sent as JSON) took a sixth of dlpd's CPU during the drain.
  absl::Time last_report = absl::Now();
  while (true) {
    const bool report = absl::Now() - last_report > absl::Seconds(10);
    dlp::ListFilter queued, running;
    queued.state = dlp::JobState::kQueued;
    running.state = dlp::JobState::kRunning;
    queued.limit = running.limit = report && !quotas ? 0 : 1;
    auto q = client.List(queued);
    auto r = client.List(running);
    if (q.ok() && r.ok() && q->empty() && r->empty()) break;
    if (report) {
      last_report = absl::Now();
      ProgressLine(client, quotas, q, r, absl::ToDoubleSeconds(last_report - start));
    }
    absl::SleepFor(absl::Milliseconds(500));
  }
  auto all = client.List({});
  if (!all.ok()) {
    std::fprintf(stderr, "list: %s\n", std::string(all.status().message()).c_str());
    flags.keep = true;
    stop_dlpd();
    return 1;
  }

  std::map<std::string, int> klass_of;  // job id -> class
  std::map<std::string, int> errors;
  int failed = 0;
  double late_sum = 0, late_max = 0;
  for (size_t i = 0; i < arrivals.size(); ++i) {
    late_sum += submitted[i].late_s;
    late_max = std::max(late_max, submitted[i].late_s);
    if (submitted[i].id.empty()) {
      ++failed;
      ++errors[submitted[i].error.substr(0, 80)];
    } else {
      klass_of[submitted[i].id] = arrivals[i].klass;
    }
  }
  std::vector<double> admission_sum(classes.size(), 0);
  std::vector<int> admitted(classes.size(), 0);
  double cpu_seconds = 0;
  absl::Time end = start;
  int succeeded = 0, not_succeeded = 0, preemptions = 0;
  for (const dlp::Job& job : *all) {
    auto k = klass_of.find(job.id);
    if (k == klass_of.end()) continue;
    preemptions += job.preemptions;
    job.state == dlp::JobState::kSucceeded ? ++succeeded : ++not_succeeded;
    if (job.finished) end = std::max(end, *job.finished);
    if (!job.started || !job.created) continue;
    admission_sum[k->second] += absl::ToDoubleSeconds(*job.started - *job.created);
    ++admitted[k->second];
    if (job.finished) {
      cpu_seconds += classes[k->second].cpus * absl::ToDoubleSeconds(*job.finished - *job.started);
    }
  }
  const double wall = absl::ToDoubleSeconds(end - start);
  const double usage = cpu_seconds / (dlp::bench::kCapacityCpus * wall);

  std::printf(
      "submitted in %.1f s (schedule: %.1f s); start of submit behind schedule: "
      "mean %.3f s, max %.3f s\n",
      submit_s, absl::ToDoubleSeconds(arrivals.back().at),
      late_sum / static_cast<double>(arrivals.size()), late_max);
  std::printf(
      "jobs: %zu acknowledged, %d failed or timed out submissions, %d Succeeded, "
      "%d other, %d preemptions\n",
      klass_of.size(), failed, succeeded, not_succeeded, preemptions);
  for (const auto& [error, n] : errors) std::printf("  %d x %s\n", n, error.c_str());
  std::vector<double> admission_s(classes.size(), 0);
  for (size_t k = 0; k < classes.size(); ++k) {
    if (admitted[k] > 0) admission_s[k] = admission_sum[k] / admitted[k];
  }
  dlp::bench::PrintAgainstKueue("dlpd", wall, usage, classes, admission_s);
  std::printf("\nload average at the end: %s\n", LoadAverage().c_str());
  stop_dlpd();
  // dlpd reaps its runners and they their ranks, so once dlpd is reaped its
  // children's time holds all of the run's work: steadier than the wall time
  // on a shared machine, for comparing builds.
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  const double cpu_s = absl::ToDoubleSeconds(absl::DurationFromTimeval(children.ru_utime) +
                                             absl::DurationFromTimeval(children.ru_stime));
  std::printf("CPU time of dlpd, its runners and the jobs: %.1f s (%.2f ms a job)\n", cpu_s,
              arrivals.empty() ? 0.0 : 1000 * cpu_s / static_cast<double>(arrivals.size()));
  return failed == 0 && not_succeeded == 0 ? 0 : 1;
}
