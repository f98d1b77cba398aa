#include "server/models/git_head.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "artifacts/output_folder.h"

namespace dlp::server {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxRead = 1 << 20;  // packed-refs of a large repository
constexpr int kMaxParents = 64;

// The file's contents (a regular file, not a link, at most kMaxRead bytes).
std::optional<std::string> ReadSmall(const fs::path& path) {
  internal::OwnedFd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
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

}  // namespace dlp::server
