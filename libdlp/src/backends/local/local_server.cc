// `dlp server start|stop|status` and the on-demand start of the local backend.
#include "dlp/local_server.h"

#include <sys/stat.h>

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "backends/local/dlpd_process.h"
#include "backends/local/local_server_internal.h"
#include "backends/local/state_files.h"
#include "config/paths.h"
#include "dlp/config.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"

namespace dlp {
namespace internal {
namespace {

constexpr absl::Duration kStartDeadline = absl::Seconds(10);
constexpr absl::Duration kStopDeadline = absl::Seconds(10);
constexpr int kMaxSpawns = 3;

bool NoServer(const absl::Status& status) {
  return absl::IsNotFound(status) || absl::IsUnavailable(status) ||
         absl::IsUnauthenticated(status);
}

long FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<long>(st.st_size) : 0;
}

// Sleeps a little longer each round while polling for dlpd to come up.
void Pause(absl::Duration& pause) {
  absl::SleepFor(pause);
  pause = std::min(pause * 2, absl::Milliseconds(100));
}

// Whether the dlpd that published the state files has exited. A dlpd killed
// while one of its threads waits in the kernel (an fsync on a busy disk) is a
// zombie that still holds its lock and listening socket for a while: the
// kernel accepts connections there that nobody will answer.
bool PublisherExited(const std::string& state_dir) {
  absl::StatusOr<std::string> pid = ReadPrivateFile(state_dir + "/dlpd.pid");
  int value = 0;
  return pid.ok() && absl::SimpleAtoi(*pid, &value) && !ProcessAlive(value);
}

}  // namespace

std::string StateDirOf(const LocalServerOptions& options) {
  return options.state_dir.empty() ? DefaultStateDir() : ExpandUser(options.state_dir);
}

absl::StatusOr<LocalConnection> ProbeLocalServer(const std::string& state_dir) {
  if (PublisherExited(state_dir)) {
    return absl::NotFoundError(absl::StrCat("the dlpd of ", state_dir, " has exited"));
  }
  DLP_ASSIGN_OR_RETURN(StateFiles files, ReadStateFiles(state_dir));
  auto client = std::make_shared<const HttpClient>(
      HttpEndpoint{absl::StrCat("http://", files.address), files.token, "", false});
  DLP_ASSIGN_OR_RETURN(std::string body, client->Get("/v1/health", {}, absl::Seconds(5)));
  auto health = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!health.is_object() || !health.value("ok", false)) {
    return absl::UnavailableError(
        absl::StrCat("dlpd at ", files.address, " is not healthy: ", body));
  }
  LocalConnection connection{std::move(client), {}};
  connection.info.running = true;
  connection.info.address = files.address;
  connection.info.pid = health.value("pid", 0);
  connection.info.version = health.value("version", "");
  connection.info.state_dir = state_dir;
  return connection;
}

absl::StatusOr<LocalConnection> FindLocalServer(const std::string& state_dir) {
  // dlpd takes the lock before it writes its files, and holds it until it exits.
  if (!LockHeld(state_dir + "/dlpd.lock")) {
    return absl::NotFoundError(absl::StrCat("no dlpd holds ", state_dir, "/dlpd.lock"));
  }
  if (PublisherExited(state_dir)) {
    return absl::NotFoundError(absl::StrCat("the dlpd of ", state_dir, " has exited"));
  }
  DLP_ASSIGN_OR_RETURN(StateFiles files, ReadStateFiles(state_dir));
  LocalConnection connection;
  connection.client = std::make_shared<const HttpClient>(
      HttpEndpoint{absl::StrCat("http://", files.address), files.token, "", false});
  connection.info.running = true;
  connection.info.address = files.address;
  connection.info.state_dir = state_dir;
  return connection;
}

absl::StatusOr<LocalConnection> EnsureLocalServer(const LocalServerOptions& options) {
  const std::string state_dir = StateDirOf(options);
  auto probe = ProbeLocalServer(state_dir);
  if (probe.ok() || !NoServer(probe.status())) return probe;

  DLP_ASSIGN_OR_RETURN(const std::string dlpd, FindDlpd(options.dlpd_path));
  DLP_RETURN_IF_ERROR(MakeDirs(state_dir));
  const std::string log_path = state_dir + "/dlpd.log";
  const long log_start = FileSize(log_path);
  const std::vector<std::string> argv = {dlpd, "--state-dir", state_dir, "--listen",
                                         options.listen};
  const absl::Time deadline = absl::Now() + kStartDeadline;
  int spawns = 0;
  int pid = 0;
  absl::Duration pause = absl::Milliseconds(5);
  while (absl::Now() < deadline) {
    // Start one unless ours is still coming up or another dlpd holds the lock
    // (a racing client started it; it will write its address soon).
    if (!ProcessAlive(pid) && !LockHeld(state_dir + "/dlpd.lock")) {
      if (spawns == kMaxSpawns) break;
      ++spawns;
      DLP_ASSIGN_OR_RETURN(pid, SpawnDetached(argv, log_path));
    }
    Pause(pause);
    probe = ProbeLocalServer(state_dir);
    if (probe.ok() || !NoServer(probe.status())) return probe;
  }
  std::string tail = FileTail(log_path, log_start, 15);
  if (tail.empty()) tail = "(empty)";
  const std::string how = spawns == kMaxSpawns
                             ? absl::StrCat(" (it exited ", spawns, " times)")
                             : absl::StrCat(" within ", absl::FormatDuration(kStartDeadline));
  return absl::UnavailableError(absl::StrCat(
      "dlpd did not start", how, " (", dlpd,
      " --state-dir ", state_dir, "); last probe: ", probe.status().message(),
      "; the end of ", log_path, ":\n", tail));
}

}  // namespace internal

absl::StatusOr<LocalServerInfo> StartLocalServer(const LocalServerOptions& options) {
  DLP_ASSIGN_OR_RETURN(internal::LocalConnection connection,
                       internal::EnsureLocalServer(options));
  return connection.info;
}

absl::Status StopLocalServer(const LocalServerOptions& options) {
  auto probe = internal::ProbeLocalServer(internal::StateDirOf(options));
  if (!probe.ok()) return internal::NoServer(probe.status()) ? absl::OkStatus() : probe.status();
  DLP_RETURN_IF_ERROR(probe->client->Post("/v1/shutdown", "{}").status());
  const int pid = probe->info.pid;
  const absl::Time deadline = absl::Now() + internal::kStopDeadline;
  absl::Duration pause = absl::Milliseconds(5);
  while (internal::ProcessAlive(pid)) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "dlpd (pid ", pid, ") did not exit within ", absl::FormatDuration(internal::kStopDeadline),
          " of being asked to stop"));
    }
    internal::Pause(pause);
  }
  return absl::OkStatus();
}

absl::StatusOr<LocalServerInfo> LocalServerStatus(const LocalServerOptions& options) {
  const std::string state_dir = internal::StateDirOf(options);
  auto probe = internal::ProbeLocalServer(state_dir);
  if (probe.ok()) return probe->info;
  if (!internal::NoServer(probe.status())) return probe.status();
  LocalServerInfo info;
  info.state_dir = state_dir;
  return info;
}

}  // namespace dlp
