// Replacing a file's contents all at once: a reader sees the old file or the
// new one, never half of one.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace dlp::base {

// Whether a write survives a crash of the machine: kDurable fsyncs the file
// and its folder; kVolatile does not (a process crash still keeps it), for
// files rewritten often whose loss at a power cut is harmless (a runner's
// intermediate status, a group file that is rewritten before every start).
enum class FileSync { kDurable, kVolatile };

// Writes `contents` to `path` atomically: a temporary file in the same folder,
// (fsync,) then rename, (then fsync of the folder, so the new name survives a
// crash). The file gets `mode` whatever the umask. The folder must exist.
// Internal error naming the path on failure. Thread-safe.
absl::Status WriteFileAtomically(const std::string& path, std::string_view contents,
                                 int mode = 0644, FileSync sync = FileSync::kDurable);

}  // namespace dlp::base
