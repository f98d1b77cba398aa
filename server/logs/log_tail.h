// Finding where the last N wanted lines of a log file begin by reading it
// backwards in blocks, so that `logs?tail=N` costs what the N lines cost,
// not the file's size.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace dlp::server {

// What a line (without its newline) counts as while scanning backwards.
enum class TailVerdict {
  kWanted,  // counts towards N
  kSkip,    // left out by a filter (a metric line)
  kStop,    // older than `since`: it and every line before it are left out
};

struct TailScan {
  uint64_t offset = 0;   // a line start: the region [offset, size) holds the lines found
  int64_t found = 0;     // wanted lines in the region
  bool stopped = false;  // a kStop line ended the scan (nothing earlier is wanted)
};

// Scans the first `size` bytes of `fd` backwards in blocks of `block` bytes
// until `want` wanted lines are found (want <= 0: none, the region starts
// after the last newline), a line says kStop, or the start of the file.
// The bytes after the last newline are a partial line: classified only when
// `count_partial`, else left in the region. A line longer than `max_line` is
// classified by its first `max_line` bytes (where its time is), so a scan
// holds at most `max_line` plus a block however long the line. Adds the bytes
// read to *bytes_read.
TailScan ScanTail(int fd, uint64_t size, int64_t want, bool count_partial,
                  const std::function<TailVerdict(std::string_view)>& classify,
                  uint64_t* bytes_read, size_t max_line, size_t block = 64 * 1024);

}  // namespace dlp::server
