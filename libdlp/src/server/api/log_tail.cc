#include "server/api/log_tail.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace dlp::server {

TailScan ScanTail(int fd, uint64_t size, int64_t want, bool count_partial,
                  const std::function<TailVerdict(std::string_view)>& classify,
                  uint64_t* bytes_read, size_t block) {
  TailScan scan;
  // buf holds the file's bytes [pos, pos + buf.size()): the lines not yet
  // classified, the last of them ending where the previous one began.
  std::string buf;
  uint64_t pos = size;
  bool partial = true;  // the line at the end of buf has no newline
  // Classifies the line starting at `start`; true when the scan is over.
  auto take = [&](std::string_view line, uint64_t start) {
    if (partial && (!count_partial || line.empty())) {
      // Not a line yet: it stays in the region for a later read.
    } else {
      const TailVerdict verdict = classify(line);
      if (verdict == TailVerdict::kStop) {
        scan.offset = start + line.size() + (partial ? 0 : 1);
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
      if (take(std::string_view(buf).substr(nl + 1), pos + nl + 1)) return scan;
      buf.resize(nl);
    }
  }
  if (!take(buf, 0)) scan.offset = 0;
  return scan;
}

}  // namespace dlp::server
