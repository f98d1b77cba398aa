#include "server/daemon/state_dir.h"

#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/files/atomic_write.h"
#include "contract/files.h"
#include "dlp/status.h"
#include "server/auth/auth.h"
#include "server/executor/process.h"

namespace dlp::server {
namespace {

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return std::string(absl::StripAsciiWhitespace(buffer.str()));
}

bool IsHexToken(const std::string& token) {
  if (token.size() < 32) return false;
  for (char c : token) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<StateDir> StateDir::Open(const std::string& path, int mode) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", path, ": ", ec.message()));
  if (chmod(path.c_str(), mode) != 0) {
    return absl::InternalError(absl::StrCat("cannot chmod ", path, ": ", strerror(errno)));
  }
  const std::string lock_path = path + "/dlpd.lock";
  int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("cannot open ", lock_path, ": ", strerror(errno)));
  }
  // A dlpd killed while it spawned dlp-run leaves a child that holds the lock
  // until it closes its inherited descriptors, a moment later: while the
  // recorded dlpd is gone, wait for that (it also means that child has created
  // its output file, which recovery reads; see executor.h).
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EINTR) continue;
    std::string pid = ReadSmallFile(path + "/dlpd.pid");
    int recorded = 0;
    const bool gone = absl::SimpleAtoi(pid, &recorded) && !ProcessStartTime(recorded);
    if (err == EWOULDBLOCK && gone && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
      continue;
    }
    close(fd);
    if (err == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("another dlpd", pid.empty() ? "" : absl::StrCat(" (pid ", pid, ")"),
                       " is already running with state folder ", path));
    }
    return absl::InternalError(absl::StrCat("cannot lock ", lock_path, ": ", strerror(err)));
  }
  return StateDir(path, fd);
}

StateDir::~StateDir() {
  if (lock_fd_ >= 0) close(lock_fd_);
}

absl::StatusOr<std::string> StateDir::LoadOrCreateToken() const {
  std::string existing = ReadSmallFile(File("dlpd.token"));
  if (IsHexToken(existing)) return existing;
  return NewSecretToken();
}

absl::Status StateDir::Publish(const std::string& address, const std::string& token) const {
  DLP_RETURN_IF_ERROR(base::WriteFileAtomically(File("dlpd.token"), token, 0600));
  DLP_RETURN_IF_ERROR(
      base::WriteFileAtomically(File("dlpd.pid"), std::to_string(getpid()), 0600));
  return base::WriteFileAtomically(File("dlpd.addr"), address, 0600);
}

void StateDir::Unpublish() const {
  unlink(File("dlpd.addr").c_str());
  unlink(File("dlpd.pid").c_str());
}

}  // namespace dlp::server
