#include "server/api/log_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "contract/files.h"
#include "contract/log_line.h"
#include "dlp/profile.h"
#include "server/api/log_tail.h"

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

namespace {

// Bytes [offset, end of file) of `fd`; adds their count to *bytes_read.
std::string ReadFrom(int fd, uint64_t offset, uint64_t* bytes_read) {
  std::string data;
  char buf[64 * 1024];
  while (true) {
    const ssize_t n = pread(fd, buf, sizeof buf, static_cast<off_t>(offset + data.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  *bytes_read += data.size();
  return data;
}

struct OpenFile {
  int fd = -1;
  struct stat st = {};
  // A job's user owns its log folder: never follow a link it put there.
  explicit OpenFile(const std::string& path) {
    const std::filesystem::path file(path);
    fd = contract::OpenRegularFileNoFollow(file.parent_path().string(), file.filename().string())
             .value_or(-1);
    if (fd >= 0 && fstat(fd, &st) != 0) {
      close(fd);
      fd = -1;
    }
  }
  ~OpenFile() {
    if (fd >= 0) close(fd);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
};

}  // namespace

std::string LogReader::TailBytes(FileState& state, const std::string& path, int fd, uint64_t size,
                                 bool final) {
  auto classify = [this](std::string_view line) {
    // As LogEntryFromLine and ReadFile judge it, except that a foreign line
    // (no time of its own) is never older than `since` here.
    auto parsed = contract::ParseLogFileLine(line);
    if (parsed && options_.since && parsed->time < *options_.since) return TailVerdict::kStop;
    if (!options_.metrics) {
      const LogLine l = parsed ? LogLine{"", std::string(contract::LogStreamName(parsed->stream)),
                                         parsed->time, parsed->text}
                               : LogLine{"", "stdout", absl::UnixEpoch(), std::string(line)};
      if (IsMetricLine(l)) return TailVerdict::kSkip;
    }
    return TailVerdict::kWanted;
  };
  const TailScan scan = ScanTail(fd, size, options_.tail, final, classify, &bytes_read_);
  state.offset = scan.offset;
  std::string data;
  if (scan.found < options_.tail && !scan.stopped) {
    // The rest from the rotated file, which ends with a whole line.
    OpenFile old(path + ".1");
    if (old.fd >= 0) {
      const TailScan more = ScanTail(old.fd, static_cast<uint64_t>(old.st.st_size),
                                     options_.tail - scan.found, true, classify, &bytes_read_);
      data = ReadFrom(old.fd, more.offset, &bytes_read_);
    }
  }
  return data;
}

std::optional<std::string> LogReader::ReadBytes(FileState& state, const std::string& path,
                                                bool final) {
  OpenFile file(path);
  if (file.fd < 0) return std::nullopt;
  const uint64_t inode = static_cast<uint64_t>(file.st.st_ino);
  const uint64_t size = static_cast<uint64_t>(file.st.st_size);
  std::string data;
  if (!state.tailed && options_.tail >= 0) {
    data = TailBytes(state, path, file.fd, size, final);
  } else if (state.inode != 0 && (inode != state.inode || size < state.offset)) {
    // Rotated since the last read: the rest of the old file, now NAME.log.1.
    OpenFile old(path + ".1");
    if (inode != state.inode && old.fd >= 0 &&
        static_cast<uint64_t>(old.st.st_ino) == state.inode) {
      data = ReadFrom(old.fd, state.offset, &bytes_read_);
    }
    state.offset = 0;
  }
  state.inode = inode;
  std::string rest = ReadFrom(file.fd, state.offset, &bytes_read_);
  state.offset += rest.size();
  return data + rest;
}

void LogReader::ReadFile(const std::string& replica, const std::string& path, bool final,
                         std::vector<LogEntry>& out) {
  FileState& state = files_[replica];
  std::optional<std::string> read = ReadBytes(state, path, final);
  if (!read) return;
  std::string data = std::move(*read);
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
