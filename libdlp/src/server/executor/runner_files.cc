#include "server/executor/runner_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace dlp::server {
namespace {

using nlohmann::json;

std::optional<int> OptionalInt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int>();
}

}  // namespace

std::string GroupFileJson(const JobSpec& spec) {
  json roles = json::array();
  for (const ReplicaSpec& r : spec.replicas) {
    roles.push_back({{"role", r.role},
                     {"count", r.count},
                     {"command", r.command},
                     {"env", r.env},
                     {"gpus", r.resources.gpu}});
  }
  json group = {{"framework", std::string(FrameworkName(spec.framework))},
                {"workdir", spec.workdir},
                {"roles", roles},
                {"restartPolicy", std::string(RestartPolicyName(spec.restart_policy.policy))},
                {"maxRestarts", spec.restart_policy.max_restarts},
                {"backoffSeconds", spec.restart_policy.backoff_seconds}};
  return group.dump(2) + "\n";
}

absl::StatusOr<RunnerStatus> ParseRunnerStatus(absl::string_view text) {
  try {
    json j = json::parse(text);
    RunnerStatus s;
    s.pid = j.value("pid", int64_t{0});
    s.state = j.value("state", std::string());
    s.restarts = j.value("restarts", 0);
    s.reason = j.value("reason", std::string());
    for (const json& r : j.value("replicas", json::array())) {
      RunnerReplica rep;
      rep.name = r.value("name", std::string());
      rep.role = r.value("role", std::string());
      rep.host = r.value("host", std::string());
      rep.index = r.value("index", 0);
      rep.rank = r.value("rank", 0);
      rep.pid = r.value("pid", int64_t{0});
      rep.pgid = r.value("pgid", int64_t{0});
      rep.state = r.value("state", std::string());
      rep.exit_code = OptionalInt(r, "exitCode");
      rep.signal = OptionalInt(r, "signal");
      s.replicas.push_back(std::move(rep));
    }
    return s;
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("status file: ", e.what()));
  }
}

absl::StatusOr<std::optional<RunnerStatus>> ReadRunnerStatus(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::optional<RunnerStatus>();
  std::stringstream buffer;
  buffer << in.rdbuf();
  absl::StatusOr<RunnerStatus> status = ParseRunnerStatus(buffer.str());
  if (!status.ok()) {
    return absl::Status(status.status().code(),
                        absl::StrCat(path, ": ", status.status().message()));
  }
  return std::optional<RunnerStatus>(std::move(*status));
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents, int mode) {
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create ", tmp, ": ", strerror(errno)));
  fchmod(fd, mode);  // regardless of the umask
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status status = absl::InternalError(absl::StrCat("cannot write ", tmp, ": ", strerror(errno)));
      close(fd);
      unlink(tmp.c_str());
      return status;
    }
    done += static_cast<size_t>(n);
  }
  fsync(fd);
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    absl::Status status = absl::InternalError(absl::StrCat("cannot rename ", tmp, " to ", path,
                                                           ": ", strerror(errno)));
    unlink(tmp.c_str());
    return status;
  }
  return absl::OkStatus();
}

}  // namespace dlp::server
