#include "server/models/git_head.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "contract/output_folder.h"

namespace dlp::server {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxRead = 1 << 20;  // packed-refs of a large repository
constexpr int kMaxParents = 64;

// The file's contents (a regular file, not a link, at most kMaxRead bytes).
std::optional<std::string> ReadSmall(const fs::path& path) {
  contract::OwnedFd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  if (fd.get() < 0 || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<size_t>(st.st_size) > kMaxRead) {
    return std::nullopt;
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  const ssize_t n = pread(fd.get(), out.data(), out.size(), 0);
  if (n < 0) return std::nullopt;
  out.resize(static_cast<size_t>(n));
  return out;
}

bool IsCommit(absl::string_view text) {
  if (text.size() != 40 && text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// "refs/heads/main": no "..", no empty or dot components.
bool SafeRef(absl::string_view ref) {
  if (!absl::StartsWith(ref, "refs/")) return false;
  for (absl::string_view part : absl::StrSplit(ref, '/')) {
    if (part.empty() || part[0] == '.') return false;
  }
  return true;
}

// The repository folder for `workdir`: a .git folder, or the gitdir a .git
// file (a worktree, a submodule) names.
std::optional<fs::path> FindGitDir(const fs::path& workdir) {
  fs::path dir = workdir;
  for (int i = 0; i < kMaxParents; ++i) {
    const fs::path dot_git = dir / ".git";
    struct stat st;
    if (lstat(dot_git.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return dot_git;
      std::optional<std::string> text = ReadSmall(dot_git);
      if (!text) return std::nullopt;
      absl::string_view line = absl::StripAsciiWhitespace(*text);
      if (!absl::ConsumePrefix(&line, "gitdir:")) return std::nullopt;
      fs::path target(std::string(absl::StripAsciiWhitespace(line)));
      return target.is_absolute() ? target : dir / target;
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

}  // namespace

std::string ReadGitCommit(const std::string& workdir) {
  if (workdir.empty()) return "";
  std::optional<fs::path> git = FindGitDir(fs::path(workdir).lexically_normal());
  if (!git) return "";
  std::optional<std::string> head = ReadSmall(*git / "HEAD");
  if (!head) return "";
  absl::string_view text = absl::StripAsciiWhitespace(*head);
  if (IsCommit(text)) return std::string(text);  // a detached HEAD
  if (!absl::ConsumePrefix(&text, "ref:")) return "";
  const std::string ref(absl::StripAsciiWhitespace(text));
  if (!SafeRef(ref)) return "";
  // A worktree keeps its HEAD; the refs live in the common folder.
  fs::path common = *git;
  if (std::optional<std::string> c = ReadSmall(*git / "commondir")) {
    const fs::path named(std::string(absl::StripAsciiWhitespace(*c)));
    common = named.is_absolute() ? named : *git / named;
  }
  for (const fs::path& base : {*git, common}) {
    if (std::optional<std::string> loose = ReadSmall(base / ref)) {
      absl::string_view commit = absl::StripAsciiWhitespace(*loose);
      if (IsCommit(commit)) return std::string(commit);
    }
  }
  if (std::optional<std::string> packed = ReadSmall(common / "packed-refs")) {
    for (absl::string_view line : absl::StrSplit(*packed, '\n')) {
      std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(line, ' ');
      if (parts.second == ref && IsCommit(parts.first)) return std::string(parts.first);
    }
  }
  return "";
}

std::string ReadGitCommitAs(const std::string& workdir, uid_t uid, gid_t gid) {
  if (workdir.empty()) return "";
  if (uid == geteuid()) return ReadGitCommit(workdir);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return "";
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return "";
  }
  if (child == 0) {
    // Nothing of dlpd's stays open (its token, database, sockets), and root
    // cannot be regained before a byte of the workdir is read.
    if (dup2(fds[1], 3) != 3) _exit(1);
    close_range(4, ~0U, 0);
    alarm(2);
    if (setgroups(1, &gid) != 0 || setgid(gid) != 0 || setuid(uid) != 0 || setuid(0) == 0) {
      _exit(1);
    }
    const std::string commit = ReadGitCommit(workdir);
    (void)!write(3, commit.data(), commit.size());
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[128];
  struct pollfd p = {fds[0], POLLIN, 0};
  const absl::Time deadline = absl::Now() + absl::Seconds(2);
  while (out.size() <= 64) {
    const int64_t left = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0) break;
    const ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return IsCommit(out) ? out : "";
}

}  // namespace dlp::server
