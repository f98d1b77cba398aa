// Where the lines of a rank go: its log file in the contract's log line format
// (contract/log_line.h), or dlp-run's own stdout and stderr with a "[rank] "
// prefix. Bytes arrive in arbitrary chunks; only whole
// lines are written, and a partial last line when the stream ends.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dlp::launch {

enum class Stream { kOut, kErr };

// Receives complete lines (without '\n') of one rank, both streams.
class LineWriter {
 public:
  virtual ~LineWriter() = default;
  virtual void WriteLine(Stream stream, absl::string_view line) = 0;
};

// Appends to DIR/<name>.log (opened O_APPEND, so restarts and other writers append).
absl::StatusOr<std::unique_ptr<LineWriter>> OpenLogFile(const std::string& dir,
                                                        const std::string& name);
// Writes "[prefix] line" to fd 1 or 2, one write() per line.
std::unique_ptr<LineWriter> PrefixWriter(const std::string& prefix);

// Splits one stream into lines; `filter` (optional) sees each line first and
// returns false to swallow it.
class LineSplitter {
 public:
  LineSplitter(LineWriter* writer, Stream stream) : writer_(writer), stream_(stream) {}
  void Feed(absl::string_view bytes);
  void Finish();  // writes a pending partial line
  void set_filter(std::function<bool(absl::string_view)> filter) { filter_ = std::move(filter); }

 private:
  void Emit(absl::string_view line);
  LineWriter* writer_;
  Stream stream_;
  std::string pending_;
  std::function<bool(absl::string_view)> filter_;
};

}  // namespace dlp::launch
