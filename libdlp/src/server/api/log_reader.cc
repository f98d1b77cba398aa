#include "server/api/log_reader.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "contract/files.h"
#include "contract/log_line.h"
#include "dlp/profile.h"

namespace dlp::server {

LogEntry LogEntryFromLine(const std::string& replica, absl::string_view line,
                          const LogEntry* previous) {
  LogEntry e;
  e.replica = replica;
  if (auto parsed = contract::ParseLogFileLine(std::string_view(line.data(), line.size()))) {
    e.time = std::move(parsed->time_text);
    e.parsed_time = parsed->time;
    e.stream = std::string(contract::LogStreamName(parsed->stream));
    e.text = std::move(parsed->text);
    return e;
  }
  e.stream = "stdout";
  e.text = std::string(line);
  if (previous != nullptr) {
    e.time = previous->time;
    e.parsed_time = previous->parsed_time;
  } else {
    e.parsed_time = absl::UnixEpoch();
    e.time = absl::FormatTime(absl::RFC3339_full, e.parsed_time, absl::UTCTimeZone());
  }
  return e;
}

std::string LogEntryToNdjson(const LogEntry& e) {
  // Field order as in docs/api.md.
  nlohmann::ordered_json j = {
      {"replica", e.replica}, {"stream", e.stream}, {"time", e.time}, {"text", e.text}};
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void LogReader::ReadFile(const std::string& replica, const std::string& path, bool final,
                         std::vector<LogEntry>& out) {
  FileState& state = files_[replica];
  // A job's user owns its log folder: never follow a link it put there.
  const std::filesystem::path file(path);
  absl::StatusOr<std::string> read = contract::ReadFileNoFollow(
      file.parent_path().string(), file.filename().string(), state.offset);
  if (!read.ok()) return;
  std::string data = std::move(*read);
  state.offset += data.size();
  data = state.partial + data;
  state.partial.clear();
  std::vector<LogEntry> entries;
  size_t start = 0;
  while (start < data.size()) {
    size_t nl = data.find('\n', start);
    if (nl == std::string::npos) {
      if (final) {
        entries.push_back(LogEntryFromLine(replica, absl::string_view(data).substr(start),
                                           entries.empty() ? nullptr : &entries.back()));
      } else {
        state.partial = data.substr(start);
      }
      break;
    }
    entries.push_back(LogEntryFromLine(replica, absl::string_view(data).substr(start, nl - start),
                                       entries.empty() ? nullptr : &entries.back()));
    start = nl + 1;
  }
  if (options_.since) {
    std::erase_if(entries, [&](const LogEntry& e) { return e.parsed_time < *options_.since; });
  }
  if (!options_.metrics) {
    std::erase_if(entries, [](const LogEntry& e) {
      return IsMetricLine(LogLine{e.replica, e.stream, e.parsed_time, e.text});
    });
  }
  if (!state.tailed) {
    state.tailed = true;
    if (options_.tail >= 0 && entries.size() > static_cast<size_t>(options_.tail)) {
      entries.erase(entries.begin(), entries.end() - options_.tail);
    }
  }
  for (LogEntry& e : entries) out.push_back(std::move(e));
}

std::vector<LogEntry> LogReader::ReadNew(bool final) {
  std::vector<LogEntry> out;
  std::vector<std::pair<std::string, std::string>> files;  // replica, path
  if (!options_.replica.empty()) {
    files.emplace_back(options_.replica, options_.dir + "/" + options_.replica + ".log");
  } else {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(options_.dir, ec)) {
      const std::filesystem::path& p = entry.path();
      if (p.extension() == ".log") files.emplace_back(p.stem().string(), p.string());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& [replica, path] : files) ReadFile(replica, path, final, out);
  std::stable_sort(out.begin(), out.end(), [](const LogEntry& a, const LogEntry& b) {
    return a.parsed_time < b.parsed_time;
  });
  return out;
}

}  // namespace dlp::server
