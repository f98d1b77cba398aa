// The log line format (runtime/src/contract/log_line.h) from both sides:
// dlp-run's splitter turns any output into lines of bounded length, and the
// readers (contract parser, dlpd's log entries and NDJSON) take any line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "contract/log_line.h"
#include "launch/output.h"
#include "server/logs/log_reader.h"

namespace {

std::string Format(const dlp::contract::LogFileLine& line) {
  return dlp::contract::FormatLogFileLine(line.time, line.stream, line.text);
}

class Check : public dlp::launch::LineWriter {
 public:
  void WriteLine(dlp::launch::Stream, absl::string_view line) override {
    if (line.size() > dlp::contract::kMaxLogLineBytes + dlp::contract::kLogLineContinued.size()) {
      __builtin_trap();
    }
    auto parsed = dlp::contract::ParseLogFileLine(std::string_view(line.data(), line.size()));
    dlp::server::LogEntry entry =
        dlp::server::LogEntryFromLine("worker-0", line, have_previous_ ? &previous_ : nullptr);
    (void)dlp::server::LogEntryToNdjson(entry);
    if (parsed) {
      // Written again and read back, a line reads the same: the writer's
      // format is a fixed point of the parser (times in microseconds).
      const std::string again = Format(*parsed);
      auto reparsed =
          dlp::contract::ParseLogFileLine(std::string_view(again).substr(0, again.size() - 1));
      if (!reparsed || Format(*reparsed) != again) __builtin_trap();
    }
    previous_ = std::move(entry);
    have_previous_ = true;
  }

 private:
  dlp::server::LogEntry previous_;
  bool have_previous_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // Byte 0: the read size dlp-run sees; byte 1: how often the rest repeats
  // (long lines need more than a fuzzer's usual input).
  const size_t chunk = 1 + data[0] * 64;
  const int repeat = 1 + data[1] % 32;
  const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::string input;
  for (int i = 0; i < repeat; ++i) input += text;
  Check check;
  dlp::launch::LineSplitter splitter(&check, dlp::launch::Stream::kOut);
  for (size_t at = 0; at < input.size(); at += chunk) {
    splitter.Feed(absl::string_view(input).substr(at, chunk));
    if (splitter.buffered_bytes() > dlp::contract::kMaxLogLineBytes) __builtin_trap();
  }
  splitter.Finish();
  return 0;
}
