// Reads the per-replica log files of a job (the contract's log line format,
// contract/log_line.h) incrementally, for the logs endpoint: filters by
// replica, tail, since and metric lines, and interleaves replicas by timestamp.
// A tail is read from the end of the file (server/api/log_tail.h), and from
// the rotated NAME.log.1 (launch/output.h) when NAME.log has too few lines; a
// follow that sees NAME.log rotated reads the rest of NAME.log.1 first.
// Not thread-safe; one reader per request.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace dlp::server {

struct LogEntry {
  std::string replica;
  std::string stream;  // "stdout" or "stderr"
  std::string time;    // as written in the file (RFC 3339, microseconds)
  absl::Time parsed_time;
  std::string text;
};

struct LogReaderOptions {
  std::string dir;
  std::string replica;  // empty: every replica
  int64_t tail = -1;    // last N lines per replica on the first read; -1: all
  std::optional<absl::Time> since;
  bool metrics = true;  // false: leave out metric lines (IsMetricLine), before the tail
};

class LogReader {
 public:
  explicit LogReader(LogReaderOptions options) : options_(std::move(options)) {}

  // Lines appended since the previous call, ordered by time across replicas.
  // A partial last line is held back until its newline arrives, unless
  // `final` is set (the job ended: nothing more will be written).
  std::vector<LogEntry> ReadNew(bool final);

  // Bytes read from files so far (what a tail costs).
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  struct FileState {
    uint64_t offset = 0;
    uint64_t inode = 0;  // of the file `offset` is in; 0: none read yet
    std::string partial;
    bool tailed = false;
  };
  // The bytes to parse from `path` (and its rotated predecessor) on this read;
  // nullopt when `path` cannot be opened.
  std::optional<std::string> ReadBytes(FileState& state, const std::string& path, bool final);
  std::string TailBytes(FileState& state, const std::string& path, int fd, uint64_t size,
                        bool final);
  void ReadFile(const std::string& replica, const std::string& path, bool final,
                std::vector<LogEntry>& out);

  LogReaderOptions options_;
  std::map<std::string, FileState> files_;  // by replica name
  uint64_t bytes_read_ = 0;
};

// One line of a replica log (contract::ParseLogFileLine); a line in another
// format becomes stdout text with the previous line's time.
LogEntry LogEntryFromLine(const std::string& replica, absl::string_view line,
                          const LogEntry* previous);

// {"replica":...,"stream":...,"time":...,"text":...} and a newline.
std::string LogEntryToNdjson(const LogEntry& entry);

}  // namespace dlp::server
