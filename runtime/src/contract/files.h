// Reads of the files a job writes (status, logs, traces) and the mode they get;
// whole-file writes are base::WriteFileAtomically (base/files/atomic_write.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

struct stat;

namespace dlp::contract {

// The mode of the files a job's runner writes (status, logs, traces): they hold
// the job's output and are its user's alone (docs/runtime-contract.md).
inline constexpr int kPrivateFileMode = 0600;

// open(path, O_WRONLY | O_CREAT | O_CLOEXEC | extra_flags) with mode
// kPrivateFileMode whatever the umask, and an existing file set to it too.
// The descriptor, or -1 with errno set.
int OpenPrivateFile(const std::string& path, int extra_flags);

// The contents of `path`; nullopt when it does not exist. Other failures are
// errors naming the path.
absl::StatusOr<std::optional<std::string>> ReadFileIfExists(const std::string& path);

// The rest of regular file `name` in folder `dir` from byte `offset`, for
// files a job's user owns and a more privileged dlpd reads: neither `dir` nor
// `name` may be a symlink (that could lead to dlpd's token) and FIFOs and
// devices are refused without blocking. NotFound when it does not exist,
// PermissionDenied otherwise, naming the path. Reading stops once more than
// `limit` bytes are read, so a result longer than `limit` means "too long".
absl::StatusOr<std::string> ReadFileNoFollow(const std::string& dir, const std::string& name,
                                             uint64_t offset = 0, size_t limit = SIZE_MAX);

// The descriptor (O_RDONLY, close-on-exec) of the regular file `dir`/`name`,
// opened as ReadFileNoFollow does; errors as there. The caller closes it.
absl::StatusOr<int> OpenRegularFileNoFollow(const std::string& dir, const std::string& name);

// Whether the open file `fd` (whose fstat is `st`) has holes: fewer bytes on
// disk than half its size, and a hole before its end. dlp-run only appends,
// so a sparse log or trace was made by the job itself, to cost a reader
// memory without costing the job disk. A compressed file system's files take
// less disk too, but have no holes.
bool IsSparse(int fd, const struct stat& st);

}  // namespace dlp::contract
