#include "contract/log_line.h"

namespace dlp::contract {

std::string_view LogStreamName(LogStream stream) {
  return stream == LogStream::kOut ? "stdout" : "stderr";
}

std::string FormatLogTime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", time, absl::UTCTimeZone());
}

std::string FormatLogFileLine(absl::Time time, LogStream stream, std::string_view text) {
  std::string line = FormatLogTime(time);
  line += stream == LogStream::kOut ? " O " : " E ";
  line.append(text.data(), text.size());
  line += '\n';
  return line;
}

std::optional<LogFileLine> ParseLogFileLine(std::string_view line) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || line.size() < space + 2) return std::nullopt;
  const char stream = line[space + 1];
  if ((stream != 'O' && stream != 'E') || (line.size() > space + 2 && line[space + 2] != ' ')) {
    return std::nullopt;
  }
  LogFileLine out;
  out.time_text = std::string(line.substr(0, space));
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, out.time_text, &out.time, &error)) return std::nullopt;
  out.stream = stream == 'O' ? LogStream::kOut : LogStream::kErr;
  if (line.size() > space + 3) out.text = std::string(line.substr(space + 3));
  return out;
}

}  // namespace dlp::contract
