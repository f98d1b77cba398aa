#include "launch/output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "contract/log_line.h"

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

class LogFile : public LineWriter {
 public:
  explicit LogFile(int fd) : fd_(fd) {}
  ~LogFile() override { close(fd_); }
  void WriteLine(Stream stream, absl::string_view line) override {
    WriteAll(fd_, contract::FormatLogFileLine(absl::Now(),
                                              stream == Stream::kOut ? contract::LogStream::kOut
                                                                     : contract::LogStream::kErr,
                                              std::string_view(line.data(), line.size())));
  }

 private:
  int fd_;
};

class Prefixed : public LineWriter {
 public:
  explicit Prefixed(std::string prefix) : prefix_(std::move(prefix)) {}
  void WriteLine(Stream stream, absl::string_view line) override {
    WriteAll(stream == Stream::kOut ? 1 : 2, absl::StrCat("[", prefix_, "] ", line, "\n"));
  }

 private:
  std::string prefix_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LineWriter>> OpenLogFile(const std::string& dir,
                                                        const std::string& name) {
  const std::string path = absl::StrCat(dir, "/", name, ".log");
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", strerror(errno)));
  }
  return std::unique_ptr<LineWriter>(new LogFile(fd));
}

std::unique_ptr<LineWriter> PrefixWriter(const std::string& prefix) {
  return std::make_unique<Prefixed>(prefix);
}

void LineSplitter::Emit(absl::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (filter_ && !filter_(line)) return;
  writer_->WriteLine(stream_, line);
}

void LineSplitter::Feed(absl::string_view bytes) {
  while (!bytes.empty()) {
    size_t nl = bytes.find('\n');
    if (nl == absl::string_view::npos) {
      pending_.append(bytes.data(), bytes.size());
      return;
    }
    if (pending_.empty()) {
      Emit(bytes.substr(0, nl));
    } else {
      pending_.append(bytes.data(), nl);
      Emit(pending_);
      pending_.clear();
    }
    bytes.remove_prefix(nl + 1);
  }
}

void LineSplitter::Finish() {
  if (!pending_.empty()) Emit(pending_);
  pending_.clear();
}

}  // namespace dlp::launch
