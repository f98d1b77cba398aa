#include "launch/status_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace dlp::launch {

std::string StatusJson(const GroupStatus& status) {
  nlohmann::json j;
  j["pid"] = status.pid;
  j["state"] = status.state;
  j["restarts"] = status.restarts;
  j["reason"] = status.reason;
  j["replicas"] = nlohmann::json::array();
  for (const ReplicaStatus& r : status.replicas) {
    nlohmann::json e;
    e["name"] = r.name;
    e["role"] = r.role;
    e["index"] = r.index;
    e["rank"] = r.rank;
    e["host"] = r.host;
    e["pid"] = r.pid;
    e["pgid"] = r.pgid;
    e["state"] = r.state;
    e["exitCode"] = r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json(nullptr);
    e["signal"] = r.signal ? nlohmann::json(*r.signal) : nlohmann::json(nullptr);
    j["replicas"].push_back(e);
  }
  return j.dump(2) + "\n";
}

absl::Status StatusFileWriter::Write(const GroupStatus& status) {
  if (path_.empty()) return absl::OkStatus();
  std::string text = StatusJson(status);
  if (text == last_) return absl::OkStatus();
  const std::string tmp = absl::StrCat(path_, ".tmp.", getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot write ", tmp, ": ", strerror(errno)));
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      close(fd);
      unlink(tmp.c_str());
      return absl::UnavailableError(absl::StrCat("cannot write ", tmp, ": ", strerror(e)));
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  if (rename(tmp.c_str(), path_.c_str()) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot rename to ", path_, ": ", strerror(e)));
  }
  last_ = std::move(text);
  return absl::OkStatus();
}

}  // namespace dlp::launch
