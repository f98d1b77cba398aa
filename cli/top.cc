// dlp top [--interval 2s] [--once]: a live view of running jobs and their
// replicas: CPU, memory, GPU (sampled by dlpd) and step rate (from the
// latest DLP_METRIC steps in the logs). q or Ctrl-C quits and restores the
// terminal; on a pipe it prints one snapshot and exits.
#include <poll.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "command.h"
#include "common.h"
#include "dlp/profile.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct TopFlags {
  double interval_s = 2;
  bool once = false;
};

std::atomic<bool> g_quit{false};
void OnSignal(int) { g_quit = true; }

std::string Bytes(int64_t b) {
  if (b < 0) return "-";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  return u == 0 ? absl::StrFormat("%.0f %s", v, units[u]) : absl::StrFormat("%.1f %s", v, units[u]);
}

std::string Snapshot(Client& client, bool color) {
  ListFilter running;
  running.state = JobState::kRunning;
  absl::StatusOr<std::vector<Job>> jobs = client.List(running);
  if (!jobs.ok()) return absl::StrCat("dlp: error: ", jobs.status().message(), "\n");
  std::string out = absl::StrCat(
      Colorize(absl::StrCat("dlp top - ", absl::FormatTime("%H:%M:%S", absl::Now(),
                                                           absl::LocalTimeZone()),
                            " - ", jobs->size(), " running job(s)"),
               kBold, color),
      "\n\n");
  Table table({"JOB", "NAME", "REPLICA", "PID", "CPU%", "MEM", "GPU%", "GPU MEM", "STEP",
               "STEPS/S"});
  for (const Job& job : *jobs) {
    std::map<std::string, ReplicaUsage> usage;
    absl::StatusOr<std::vector<ReplicaUsage>> u = client.Usage(job.id);
    if (u.ok()) {
      for (const ReplicaUsage& r : *u) usage[r.replica] = r;
    }
    // A job whose logs cannot be read shows no steps.
    std::map<std::string, StepRate> steps =
        client.StepRates(job.id).value_or(std::map<std::string, StepRate>{});
    for (const JobReplica& r : job.replicas) {
      auto it = usage.find(r.name);
      const bool have = it != usage.end();
      const StepRate step = steps.count(r.name) ? steps[r.name] : StepRate{};
      table.AddRow({job.id, job.name, r.name, r.pid > 0 ? absl::StrCat(r.pid) : "-",
                    have ? absl::StrFormat("%.1f", it->second.cpu_percent) : "-",
                    have ? Bytes(it->second.rss_bytes) : "-",
                    have && it->second.gpu_util_percent >= 0
                        ? absl::StrFormat("%.0f", it->second.gpu_util_percent)
                        : "-",
                    have ? Bytes(it->second.gpu_memory_bytes) : "-",
                    step.step >= 0 ? absl::StrCat(step.step) : "-",
                    step.steps_per_s > 0 ? absl::StrFormat("%.2f", step.steps_per_s) : "-"});
    }
  }
  if (table.empty()) {
    absl::StrAppend(&out, "No running jobs.\n");
    return out;
  }
  // Table prints to a FILE*; render into memory.
  char* buf = nullptr;
  size_t len = 0;
  FILE* mem = open_memstream(&buf, &len);
  table.Print(mem, color);
  std::fclose(mem);
  out.append(buf, len);
  std::free(buf);
  return out;
}

// Raw keyboard input and the alternate screen, undone on every exit path.
class Terminal {
 public:
  Terminal() {
    if (tcgetattr(STDIN_FILENO, &saved_) == 0) {
      termios raw = saved_;
      raw.c_lflag &= ~(ICANON | ECHO);
      raw.c_cc[VMIN] = 0;
      raw.c_cc[VTIME] = 0;
      restore_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
    }
    std::fputs("\033[?1049h\033[?25l", stdout);  // alternate screen, hide cursor
  }
  ~Terminal() {
    std::fputs("\033[?25h\033[?1049l", stdout);
    std::fflush(stdout);
    if (restore_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }

 private:
  termios saved_{};
  bool restore_ = false;
};

int RunTop(const TopFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  if (flags.once || !IsTty(STDOUT_FILENO)) {
    std::fputs(Snapshot(**client, UseColor(globals, STDOUT_FILENO)).c_str(), stdout);
    return Code(ExitCode::kSuccess);
  }
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  Terminal terminal;
  const bool color = UseColor(globals, STDOUT_FILENO);
  while (!g_quit) {
    std::string frame = Snapshot(**client, color);
    std::printf("\033[H\033[2J%s\n(q to quit, refreshing every %.1f s)", frame.c_str(),
                flags.interval_s);
    std::fflush(stdout);
    const absl::Time next = absl::Now() + absl::Seconds(flags.interval_s);
    while (!g_quit && absl::Now() < next) {
      pollfd in{STDIN_FILENO, POLLIN, 0};
      if (poll(&in, 1, 100) > 0) {
        char c = 0;
        if (read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q' || c == 3)) g_quit = true;
      }
    }
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterTop(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<TopFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "top", "Live view of running jobs: CPU, memory, GPU and step rate per replica");
  cmd->add_option("--interval", flags->interval_s, "Seconds between refreshes")
      ->check(CLI::Range(0.2, 3600.0));
  cmd->add_flag("--once", flags->once, "Print one snapshot and exit (the default on a pipe)");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunTop(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
