#include "launch/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "contract/files.h"
#include "contract/log_line.h"
#include "contract/metric_line.h"
#include "dlp/status.h"

namespace dlp::launch {
namespace {

void WriteAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a full disk or closed stdout must not stop the launcher
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// Appends the metric lines of a replica to its metrics file up to a limit,
// then one line that says the rest are dropped (contract/metric_line.h).
class MetricsFile {
 public:
  MetricsFile(int fd, int64_t size, int64_t max_bytes)
      : fd_(fd), size_(size), max_bytes_(max_bytes) {}
  ~MetricsFile() {
    if (fd_ >= 0) close(fd_);
  }
  MetricsFile(const MetricsFile&) = delete;
  MetricsFile& operator=(const MetricsFile&) = delete;

  // Appends `file_line` (a log file line of `text`) when `text` is a metric
  // line on stdout; returns true when this line found the file full.
  bool Append(Stream stream, absl::string_view text, const std::string& file_line) {
    if (fd_ < 0 || stream != Stream::kOut || full_ ||
        !contract::ParseMetricText(std::string_view(text.data(), text.size()))) {
      return false;
    }
    if (size_ + static_cast<int64_t>(file_line.size()) > max_bytes_) {
      full_ = true;
      WriteAll(fd_, DroppedLine());
      return true;
    }
    WriteAll(fd_, file_line);
    size_ += static_cast<int64_t>(file_line.size());
    return false;
  }

  static std::string DroppedLine() {
    return contract::FormatLogFileLine(absl::Now(), contract::LogStream::kErr,
                                       contract::kMetricsDropped);
  }

 private:
  int fd_;
  int64_t size_;
  int64_t max_bytes_;
  bool full_ = false;
};

class LogFile : public LineWriter {
 public:
  LogFile(std::string path, int fd, int64_t size, int64_t max_bytes,
          std::unique_ptr<MetricsFile> metrics)
      : path_(std::move(path)),
        fd_(fd),
        size_(size),
        max_bytes_(max_bytes),
        metrics_(std::move(metrics)) {}
  ~LogFile() override {
    if (fd_ >= 0) close(fd_);
  }
  void WriteLine(Stream stream, absl::string_view line) override {
    const std::string text = contract::FormatLogFileLine(
        absl::Now(), stream == Stream::kOut ? contract::LogStream::kOut : contract::LogStream::kErr,
        std::string_view(line.data(), line.size()));
    // A metric point also goes to the metrics file, which rotation leaves alone.
    if (metrics_->Append(stream, line, text)) Append(MetricsFile::DroppedLine());
    Append(text);
  }

 private:
  void Append(const std::string& text) {
    const int64_t length = static_cast<int64_t>(text.size());
    if (max_bytes_ > 0 && size_ > 0 && size_ + length > max_bytes_) Rotate();
    if (fd_ < 0) return;
    WriteAll(fd_, text);
    size_ += length;
  }

  // NAME.log becomes NAME.log.1; a failure keeps writing where it can.
  void Rotate() {
    const std::string old = path_ + ".1";
    if (rename(path_.c_str(), old.c_str()) != 0) return;
    const int fd = contract::OpenPrivateFile(path_, O_APPEND | O_TRUNC);
    if (fd < 0) return;  // the old descriptor still appends to NAME.log.1
    close(fd_);
    fd_ = fd;
    size_ = 0;
  }

  std::string path_;
  int fd_;
  int64_t size_;
  int64_t max_bytes_;
  std::unique_ptr<MetricsFile> metrics_;
};

class Prefixed : public LineWriter {
 public:
  explicit Prefixed(std::string prefix) : prefix_(std::move(prefix)) {}
  void WriteLine(Stream stream, absl::string_view line) override {
    WriteAll(stream == Stream::kOut ? 1 : 2, prefix_.empty()
                                                 ? absl::StrCat(line, "\n")
                                                 : absl::StrCat("[", prefix_, "] ", line, "\n"));
  }

 private:
  std::string prefix_;  // empty: the line alone
};

}  // namespace

absl::StatusOr<std::unique_ptr<LineWriter>> OpenLogFile(const std::string& dir,
                                                        const std::string& name,
                                                        int64_t max_bytes,
                                                        int64_t metrics_max_bytes) {
  // Opened O_APPEND with its size: a restart appends after what is there.
  auto open = [](const std::string& path, int64_t* size) -> absl::StatusOr<int> {
    const int fd = contract::OpenPrivateFile(path, O_APPEND);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
      const int err = errno;
      if (fd >= 0) close(fd);
      return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", strerror(err)));
    }
    *size = st.st_size;
    return fd;
  };
  const std::string path = absl::StrCat(dir, "/", name, ".log");
  int64_t size = 0, metrics_size = 0;
  DLP_ASSIGN_OR_RETURN(const int metrics_fd,
                       open(absl::StrCat(dir, "/", name, std::string(contract::kMetricsFileSuffix)),
                            &metrics_size));
  auto metrics = std::make_unique<MetricsFile>(metrics_fd, metrics_size, metrics_max_bytes);
  DLP_ASSIGN_OR_RETURN(const int fd, open(path, &size));
  return std::unique_ptr<LineWriter>(new LogFile(path, fd, size, max_bytes, std::move(metrics)));
}

std::unique_ptr<LineWriter> PrefixWriter(const std::string& prefix) {
  return std::make_unique<Prefixed>(prefix);
}

std::unique_ptr<LineWriter> PlainWriter() { return std::make_unique<Prefixed>(""); }

void LineSplitter::Emit(absl::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (filter_ && !filter_(line)) return;
  writer_->WriteLine(stream_, line);
}

void LineSplitter::EmitPiece() {
  // A UTF-8 character cut at the end goes whole into the next piece.
  size_t cut = pending_.size();
  for (size_t i = 1; i <= 3 && i < pending_.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(pending_[pending_.size() - i]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: its lead is further back
    const size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (length > i) cut = pending_.size() - i;
    break;
  }
  std::string piece = pending_.substr(0, cut);
  piece.append(contract::kLogLineContinued.data(), contract::kLogLineContinued.size());
  pending_.erase(0, cut);
  if (filter_ && !filter_(piece)) return;
  writer_->WriteLine(stream_, piece);
}

void LineSplitter::Feed(absl::string_view bytes) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const size_t length = nl == absl::string_view::npos ? bytes.size() : nl;
    if (pending_.empty() && nl != absl::string_view::npos && nl <= contract::kMaxLogLineBytes) {
      Emit(bytes.substr(0, nl));  // the common case: a whole line, no copy
      bytes.remove_prefix(nl + 1);
      continue;
    }
    const size_t room = contract::kMaxLogLineBytes - pending_.size();
    if (length > room) {
      pending_.append(bytes.data(), room);
      bytes.remove_prefix(room);
      EmitPiece();
      continue;
    }
    pending_.append(bytes.data(), length);
    if (nl == absl::string_view::npos) return;
    Emit(pending_);
    pending_.clear();
    bytes.remove_prefix(nl + 1);
  }
}

void LineSplitter::Finish() {
  if (!pending_.empty()) Emit(pending_);
  pending_.clear();
}

}  // namespace dlp::launch
