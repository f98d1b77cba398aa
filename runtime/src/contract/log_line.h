// The log line format (docs/runtime-contract.md, "Logs"): one line of a
// replica's log file is "2026-11-30T12:00:00.123456Z O text" (UTC with
// microseconds, O for stdout, E for stderr). dlp-run writes it; dlpd's logs
// endpoint and the Slurm backend read it. Written and parsed only here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"

namespace dlp::contract {

enum class LogStream { kOut, kErr };

// The longest text of one log line. dlp-run writes a longer line of output as
// several lines of at most this many bytes (cut at a UTF-8 character boundary),
// each but the last ending with kLogLineContinued, so that no line costs more
// memory than this however long the program's own line is.
inline constexpr size_t kMaxLogLineBytes = 64 * 1024;
inline constexpr std::string_view kLogLineContinued = " [dlp-run: line continues]";
// The longest line of a log file that dlp-run writes (its time, stream, text
// and kLogLineContinued fit with room to spare). A reader cuts a longer line:
// the job wrote it into its file itself.
inline constexpr size_t kMaxLogFileLineBytes = kMaxLogLineBytes + 256;

// "stdout" / "stderr": the names the API and the CLI use.
std::string_view LogStreamName(LogStream stream);

// "2026-11-30T12:00:00.123456Z".
std::string FormatLogTime(absl::Time time);

// One line of a log file, with its newline.
std::string FormatLogFileLine(absl::Time time, LogStream stream, std::string_view text);

struct LogFileLine {
  std::string time_text;  // as written
  absl::Time time;
  LogStream stream = LogStream::kOut;
  std::string text;
};

// Parses one line (without its newline); nullopt for a line in another format.
std::optional<LogFileLine> ParseLogFileLine(std::string_view line);

}  // namespace dlp::contract
