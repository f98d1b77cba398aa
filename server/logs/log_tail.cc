#include "server/logs/log_tail.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace dlp::server {

TailScan ScanTail(int fd, uint64_t size, int64_t want, bool count_partial,
                  const std::function<TailVerdict(std::string_view)>& classify,
                  uint64_t* bytes_read, size_t max_line, size_t block) {
  TailScan scan;
  // buf holds the file's bytes [pos, pos + buf.size()): the lines not yet
  // classified, the last of them ending where the previous one began, less
  // the `dropped` bytes past max_line cut from the end of that last line.
  std::string buf;
  uint64_t dropped = 0;
  uint64_t pos = size;
  bool partial = true;  // the line at the end of buf has no newline
  // Classifies the line starting at `start`, `length` bytes long of which
  // `line` holds the first; true when the scan is over.
  auto take = [&](std::string_view line, uint64_t start, uint64_t length) {
    if (partial && (!count_partial || length == 0)) {
      // Not a line yet: it stays in the region for a later read.
    } else {
      const TailVerdict verdict = classify(line);
      if (verdict == TailVerdict::kStop) {
        scan.offset = start + length + (partial ? 0 : 1);
        scan.stopped = true;
        return true;
      }
      if (verdict == TailVerdict::kWanted) ++scan.found;
    }
    partial = false;
    scan.offset = start;
    return scan.found >= want;
  };
  while (pos > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(block, pos));
    std::string chunk(n, '\0');
    size_t got = 0;
    while (got < n) {
      const ssize_t r = pread(fd, chunk.data() + got, n - got, static_cast<off_t>(pos - n + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    *bytes_read += got;
    if (got < n) return scan;  // the file shrank or failed: what was found so far
    pos -= n;
    buf.insert(0, chunk);
    for (size_t nl; (nl = buf.rfind('\n')) != std::string::npos;) {
      const std::string_view line = std::string_view(buf).substr(nl + 1);
      if (take(line, pos + nl + 1, line.size() + dropped)) return scan;
      buf.resize(nl);
      dropped = 0;
    }
    if (buf.size() > max_line) {
      dropped += buf.size() - max_line;
      buf.resize(max_line);
    }
  }
  if (!take(buf, 0, buf.size() + dropped)) scan.offset = 0;
  return scan;
}

}  // namespace dlp::server
