// Where the lines of a rank go: its log file in the contract's log line format
// (contract/log_line.h), or dlp-run's own stdout and stderr with a "[rank] "
// prefix. Bytes arrive in arbitrary chunks; only whole lines are written (a
// line longer than contract::kMaxLogLineBytes in pieces), and a partial last
// line when the stream ends.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "contract/metric_line.h"

namespace dlp::launch {

enum class Stream { kOut, kErr };

// Receives complete lines (without '\n') of one rank, both streams.
class LineWriter {
 public:
  virtual ~LineWriter() = default;
  virtual void WriteLine(Stream stream, absl::string_view line) = 0;
};

// Appends to DIR/<name>.log (opened O_APPEND, so restarts and other writers
// append), mode 0600. With `max_bytes` > 0, a line that would take the file
// past it first renames the file to <name>.log.1 (replacing the previous one)
// and starts a new one: the newest output is kept, between max_bytes and twice
// that on disk. Metric lines also go to DIR/<name>.metrics, never rotated, up
// to `metrics_max_bytes` (contract/metric_line.h).
absl::StatusOr<std::unique_ptr<LineWriter>> OpenLogFile(
    const std::string& dir, const std::string& name, int64_t max_bytes = 0,
    int64_t metrics_max_bytes = contract::kMaxMetricsFileBytes);
// Writes "[prefix] line" to fd 1 or 2, one write() per line.
std::unique_ptr<LineWriter> PrefixWriter(const std::string& prefix);
// Writes each line unchanged to fd 1 or 2: the one rank of a pod, whose
// container log is its log.
std::unique_ptr<LineWriter> PlainWriter();

// Splits one stream into lines; `filter` (optional) sees each line first and
// returns false to swallow it. Holds at most contract::kMaxLogLineBytes: a
// longer line goes out in pieces, each but the last ending with
// contract::kLogLineContinued.
class LineSplitter {
 public:
  LineSplitter(LineWriter* writer, Stream stream) : writer_(writer), stream_(stream) {}
  void Feed(absl::string_view bytes);
  void Finish();  // writes a pending partial line
  void set_filter(std::function<bool(absl::string_view)> filter) { filter_ = std::move(filter); }
  size_t buffered_bytes() const { return pending_.size(); }

 private:
  void Emit(absl::string_view line);
  void EmitPiece();  // the first piece of an over-long pending_ line
  LineWriter* writer_;
  Stream stream_;
  std::string pending_;
  std::function<bool(absl::string_view)> filter_;
};

}  // namespace dlp::launch
