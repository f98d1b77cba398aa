// Reads the per-replica log files of a job (the contract's log line format,
// contract/log_line.h) incrementally, for the logs endpoint: filters by
// replica, tail, since and metric lines, and interleaves replicas by timestamp.
// A tail is read from the end of the file (server/logs/log_tail.h), and from
// the rotated NAME.log.1 (launch/output.h) when NAME.log has too few lines; a
// read from the start reads NAME.log.1 first, and a follow that sees NAME.log
// rotated reads the rest of NAME.log.1 first.
//
// The files are the job's, so their size is the job's to choose: a read holds
// at most a chunk of each file plus one line of at most
// contract::kMaxLogFileLineBytes
// (a longer one is cut and marked), a sparse file is not read at all, and a
// reader may be given a cap on the bytes it reads in all (docs/security.md).
// Not thread-safe; one reader per request.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/log_line.h"
#include "contract/tenant_files.h"

namespace dlp::server {

// What a line longer than contract::kMaxLogFileLineBytes ends with once cut.
inline constexpr std::string_view kLogLineCut = " [dlpd: line cut]";
// The bytes of one file one ReadNew reads at most.
inline constexpr uint64_t kLogChunkBytes = 1 << 20;

struct LogEntry {
  std::string replica;
  std::string stream;  // "stdout" or "stderr"
  std::string time;    // as written in the file (RFC 3339, microseconds)
  absl::Time parsed_time;
  std::string text;
};

// Opens the job's log folder, through the trust boundary (docs/security.md);
// NotFound until the job has started.
using LogFolderOpener = std::function<absl::StatusOr<contract::TenantFolder>()>;

// The folder `dir` as one the caller trusts as its own (tests, tools).
LogFolderOpener LogFolderAt(const std::string& dir);

struct LogReaderOptions {
  LogFolderOpener folder;
  std::string replica;  // empty: every replica
  int64_t tail = -1;    // last N lines per replica on the first read; -1: all
  std::optional<absl::Time> since;
  bool metrics = true;  // false: leave out metric lines (IsMetricLine), before the tail
  // Only metric lines, from each replica's metrics file (contract/metric_line.h),
  // which rotation leaves whole; from its log for a job written before those.
  bool metrics_only = false;
  uint64_t chunk_bytes = kLogChunkBytes;  // read from each file per ReadNew, at most
  uint64_t max_bytes = 0;  // read in all before the reader stops (and says so); 0: no cap
};

class LogReader {
 public:
  explicit LogReader(LogReaderOptions options) : options_(std::move(options)) {}

  // Lines appended since the previous call (at most a chunk of each file),
  // ordered by time across replicas, then what dlpd has to say about them (a
  // sparse file, the cap) as stderr lines of their replica. A partial last
  // line is held back until its newline arrives, unless `final` is set (the
  // job ended: nothing more will be written) and the file was read to its end.
  std::vector<LogEntry> ReadNew(bool final);

  // Whether the last ReadNew reached the end of every file (or the cap): a
  // request that does not follow calls ReadNew until it has.
  bool caught_up() const { return caught_up_; }

  // Bytes read from files so far (what a tail costs).
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  struct FileState {
    uint64_t offset = 0;
    uint64_t inode = 0;  // of the file `offset` is in; 0: none read yet
    // The rest of the rotated NAME.log.1 to read before NAME.log: its inode
    // (0: none) and where that rest begins.
    uint64_t rotated_inode = 0, rotated_offset = 0;
    std::string name;  // the file read, in the folder: chosen once (FileOf)
    std::string partial;  // at most contract::kMaxLogFileLineBytes
    bool cutting = false;  // an over-long line was cut: its rest is skipped
    bool tailed = false;
    bool at_end = true;  // the last read reached the end of the file
    bool refused = false;  // sparse: said once, then never read
  };
  // At most `budget` bytes to parse from `path` (and its rotated predecessor)
  // on this read; nullopt when `path` cannot be opened or is refused.
  std::optional<std::string> ReadBytes(const std::string& replica, FileState& state,
                                       const std::string& path, bool final, uint64_t budget);
  // The file `replica`'s lines are read from: NAME.metrics or NAME.log.
  std::string FileOf(const std::string& replica);
  void StartTail(FileState& state, const std::string& path, int fd, uint64_t size, bool final);
  // Splits `data` into lines after state.partial; a line that grows past
  // contract::kMaxLogFileLineBytes is cut.
  void SplitLines(const std::string& replica, FileState& state, std::string_view data,
                  bool flush, std::vector<LogEntry>& entries);
  void ReadFile(const std::string& replica, const std::string& path, bool final,
                std::vector<LogEntry>& out);
  // A line from dlpd itself, about `replica`'s file.
  void Say(const std::string& replica, std::string text);

  LogReaderOptions options_;
  std::map<std::string, FileState> files_;  // by replica name
  std::optional<contract::TenantFolder> folder_;  // opened on the first read that finds it
  uint64_t bytes_read_ = 0;
  bool caught_up_ = true;
  bool capped_ = false;  // options_.max_bytes were read
  std::vector<LogEntry> notes_;  // what Say said during this ReadNew
};

// One line of a replica log (contract::ParseLogFileLine); a line in another
// format becomes stdout text with the previous line's time.
LogEntry LogEntryFromLine(const std::string& replica, absl::string_view line,
                          const LogEntry* previous);

// {"replica":...,"stream":...,"time":...,"text":...} and a newline.
std::string LogEntryToNdjson(const LogEntry& entry);

}  // namespace dlp::server
