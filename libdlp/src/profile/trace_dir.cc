// Reading a folder's trace files (dlp-run's --log-dir, dlpd's job folders,
// Slurm output folders).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <regex>

#include "absl/strings/str_cat.h"
#include "contract/files.h"
#include "contract/output_folder.h"
#include "dlp/profile.h"
#include "dlp/trace_folder.h"

namespace dlp {

bool IsTraceFileName(const std::string& name) {
  static const std::regex kName(R"(rank-\d+(\.restart-\d+)?\.trace\.json)");
  return std::regex_match(name, kName);
}

namespace {

// The trace file `dir`/`name`, within `limit` bytes; nullopt when it cannot
// be opened (gone, a link, not a regular file: skipped as before).
absl::StatusOr<std::optional<std::string>> ReadTraceFile(const contract::TenantFolder& folder,
                                                         const std::string& name,
                                                         uint64_t limit) {
  // The folder may belong to a job's user and dlpd may read it as root:
  // opened through the trust boundary (contract/tenant_files.h).
  absl::StatusOr<contract::TenantFile> opened = folder.OpenFile(name);
  if (!opened.ok()) return std::optional<std::string>();
  const int fd = dup(opened->fd.get());
  if (fd < 0) return std::optional<std::string>();
  struct stat st = {};
  std::string why;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return std::optional<std::string>();
  }
  if (contract::IsSparse(fd, st)) {
    why = absl::StrCat("a sparse file of ", st.st_size, " bytes with ",
                       int64_t{st.st_blocks} * 512, " on disk");
  } else if (static_cast<uint64_t>(st.st_size) > limit) {
    why = absl::StrCat(st.st_size, " bytes, more than the ", limit, " left to read");
  }
  std::string data;
  if (why.empty()) {
    // One byte past the limit tells a file that grew since fstat.
    data.resize(static_cast<size_t>(std::min<uint64_t>(st.st_size, limit) + 1));
    size_t got = 0;
    while (got < data.size()) {
      const ssize_t n = pread(fd, data.data() + got, data.size() - got, static_cast<off_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    data.resize(got);
    if (got > limit) why = absl::StrCat("more than the ", limit, " bytes left to read");
  }
  close(fd);
  if (!why.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": ", why, "; trace files are not read past their limits"));
  }
  return std::optional<std::string>(std::move(data));
}

// The trace files of `folder`, as ReadTraceDir reads them.
absl::StatusOr<std::vector<TraceFile>> ReadTenantTraces(const contract::TenantFolder& folder,
                                                        const TraceReadLimits& limits) {
  std::vector<std::string> names;
  for (std::string& name : contract::ListFolder(folder)) {
    if (IsTraceFileName(name)) names.push_back(std::move(name));
  }
  std::vector<TraceFile> files;
  uint64_t total = 0;
  for (const std::string& name : names) {
    const uint64_t left = limits.max_total_bytes - total;
    absl::StatusOr<std::optional<std::string>> content =
        ReadTraceFile(folder, name, std::min(limits.max_file_bytes, left));
    if (!content.ok()) return content.status();
    if (!*content) continue;
    total += (*content)->size();
    files.push_back({name, std::move(**content)});
  }
  return files;
}

}  // namespace

absl::StatusOr<std::vector<TraceFile>> ReadTraceDir(const std::string& dir,
                                                    const TraceReadLimits& limits) {
  absl::StatusOr<contract::TenantFolder> folder = contract::OpenOwnFolder(dir);
  if (!folder.ok()) return absl::NotFoundError(absl::StrCat("cannot read ", dir));
  return ReadTenantTraces(*folder, limits);
}

absl::StatusOr<std::vector<TraceFile>> ReadTraceFolder(int folder_fd,
                                                       const TraceReadLimits& limits) {
  contract::OwnedFd fd(fcntl(folder_fd, F_DUPFD_CLOEXEC, 0));
  if (!fd) return absl::NotFoundError("cannot read the trace folder");
  absl::StatusOr<contract::TenantFolder> folder = contract::TenantFolder::FromFd(std::move(fd));
  if (!folder.ok()) return absl::NotFoundError("cannot read the trace folder");
  return ReadTenantTraces(*folder, limits);
}

}  // namespace dlp
