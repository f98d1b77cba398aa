#include "server/logs/log_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "contract/files.h"
#include "contract/log_line.h"
#include "contract/metric_line.h"
#include "contract/output_folder.h"
#include "dlp/profile.h"
#include "server/logs/log_tail.h"

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

// Bytes [offset, size) of `fd`, at most `limit` of them (fewer if it shrank);
// adds their count to *bytes_read.
std::string ReadUpTo(int fd, uint64_t offset, uint64_t size, uint64_t limit,
                     uint64_t* bytes_read) {
  std::string data(static_cast<size_t>(std::min(limit, size > offset ? size - offset : 0)), '\0');
  size_t got = 0;
  while (got < data.size()) {
    const ssize_t n =
        pread(fd, data.data() + got, data.size() - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  data.resize(got);
  *bytes_read += got;
  return data;
}

struct OpenFile {
  int fd = -1;
  struct stat st = {};
  bool sparse = false;
  // A job's user owns its log folder: `name` is opened below it as the trust
  // boundary allows (contract/tenant_files.h).
  OpenFile(const std::optional<contract::TenantFolder>& folder, const std::string& name) {
    absl::StatusOr<contract::TenantFile> file =
        folder ? folder->OpenFile(name) : absl::NotFoundError("no log folder");
    if (file.ok()) fd = dup(file->fd.get());
    if (fd >= 0 && fstat(fd, &st) != 0) {
      close(fd);
      fd = -1;
    }
    sparse = fd >= 0 && contract::IsSparse(fd, st);
  }
  ~OpenFile() {
    if (fd >= 0) close(fd);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
};

std::string FileName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

}  // namespace

LogFolderOpener LogFolderAt(const std::string& dir) {
  return [dir] { return contract::OpenOwnFolder(dir); };
}

void LogReader::Say(const std::string& replica, std::string text) {
  LogEntry e;
  e.replica = replica;
  e.stream = "stderr";
  e.parsed_time = absl::Now();
  e.time = contract::FormatLogTime(e.parsed_time);
  e.text = absl::StrCat("[dlpd: ", text, "]");
  notes_.push_back(std::move(e));
}

void LogReader::StartTail(FileState& state, const std::string& path, int fd, uint64_t size,
                          bool final) {
  auto classify = [this](std::string_view line) {
    // As LogEntryFromLine and ReadFile judge it, except that a foreign line
    // (no time of its own) is never older than `since` here.
    auto parsed = contract::ParseLogFileLine(line);
    if (parsed && options_.since && parsed->time < *options_.since) return TailVerdict::kStop;
    if (!options_.metrics || options_.metrics_only) {
      const LogLine l = parsed ? LogLine{"", std::string(contract::LogStreamName(parsed->stream)),
                                         parsed->time, parsed->text}
                               : LogLine{"", "stdout", absl::UnixEpoch(), std::string(line)};
      if (!MetricFilterKeeps(l, options_.metrics, options_.metrics_only)) {
        return TailVerdict::kSkip;
      }
    }
    return TailVerdict::kWanted;
  };
  const TailScan scan = ScanTail(fd, size, options_.tail, final, classify, &bytes_read_,
                                 contract::kMaxLogFileLineBytes);
  state.offset = scan.offset;
  if (scan.found < options_.tail && !scan.stopped) {
    // The rest from the rotated file, which ends with a whole line.
    OpenFile old(folder_, path + ".1");
    if (old.fd >= 0 && !old.sparse) {
      const TailScan more =
          ScanTail(old.fd, static_cast<uint64_t>(old.st.st_size), options_.tail - scan.found,
                   true, classify, &bytes_read_, contract::kMaxLogFileLineBytes);
      state.rotated_inode = static_cast<uint64_t>(old.st.st_ino);
      state.rotated_offset = more.offset;
    }
  }
}

std::optional<std::string> LogReader::ReadBytes(const std::string& replica, FileState& state,
                                                const std::string& path, bool final,
                                                uint64_t budget) {
  OpenFile file(folder_, path);
  if (file.fd < 0) return std::nullopt;
  if (file.sparse) {
    state.refused = true;
    Say(replica, absl::StrCat(FileName(path), " not read: a sparse file of ", file.st.st_size,
                              " bytes with ", int64_t{file.st.st_blocks} * 512, " on disk"));
    return std::nullopt;
  }
  const uint64_t inode = static_cast<uint64_t>(file.st.st_ino);
  const uint64_t size = static_cast<uint64_t>(file.st.st_size);
  if (!state.tailed && options_.tail >= 0) {
    StartTail(state, path, file.fd, size, final);
  } else if (state.inode == 0) {
    // A read from the start: what rotation kept of the older lines comes first.
    OpenFile old(folder_, path + ".1");
    if (old.fd >= 0 && static_cast<uint64_t>(old.st.st_ino) != inode) {
      state.rotated_inode = static_cast<uint64_t>(old.st.st_ino);
      state.rotated_offset = 0;
    }
  } else if (inode != state.inode || size < state.offset) {
    // Rotated since the last read: the rest of the old file, now NAME.log.1,
    // comes first.
    if (inode != state.inode) {
      state.rotated_inode = state.inode;
      state.rotated_offset = state.offset;
    }
    state.offset = 0;
  }
  state.inode = inode;
  std::string data;
  if (state.rotated_inode != 0) {
    OpenFile old(folder_, path + ".1");
    if (old.fd >= 0 && !old.sparse && static_cast<uint64_t>(old.st.st_ino) == state.rotated_inode) {
      data = ReadUpTo(old.fd, state.rotated_offset, static_cast<uint64_t>(old.st.st_size),
                      budget, &bytes_read_);
      state.rotated_offset += data.size();
      if (data.size() == budget) {
        state.at_end = false;
        return data;
      }
    }
    state.rotated_inode = 0;
  }
  const uint64_t left = budget - data.size();
  std::string rest = ReadUpTo(file.fd, state.offset, size, left, &bytes_read_);
  state.offset += rest.size();
  state.at_end = state.offset >= size;
  return data + rest;
}

void LogReader::SplitLines(const std::string& replica, FileState& state, std::string_view data,
                           bool flush, std::vector<LogEntry>& entries) {
  auto emit = [&](std::string_view line, bool cut) {
    entries.push_back(LogEntryFromLine(replica, absl::string_view(line.data(), line.size()),
                                       entries.empty() ? nullptr : &entries.back()));
    if (cut) entries.back().text.append(kLogLineCut);
  };
  const size_t max_line = contract::kMaxLogFileLineBytes;
  size_t start = 0;
  while (start < data.size()) {
    const size_t nl = data.find('\n', start);
    const size_t end = nl == std::string_view::npos ? data.size() : nl;
    const size_t next = nl == std::string_view::npos ? data.size() : nl + 1;
    if (state.cutting) {
      // The rest of a line already cut and sent.
      if (nl != std::string_view::npos) state.cutting = false;
    } else if (state.partial.empty() && nl != std::string_view::npos && end - start <= max_line) {
      emit(data.substr(start, end - start), false);  // the common case: no copy
    } else {
      const std::string_view piece = data.substr(start, end - start);
      const size_t room = max_line - state.partial.size();
      state.partial.append(piece.substr(0, room));
      if (piece.size() > room) {
        emit(state.partial, true);
        state.partial.clear();
        state.cutting = nl == std::string_view::npos;
      } else if (nl != std::string_view::npos) {
        emit(state.partial, false);
        state.partial.clear();
      }
    }
    start = next;
  }
  if (flush) {
    if (!state.partial.empty()) emit(state.partial, false);
    state.partial.clear();
    state.cutting = false;
  }
}

void LogReader::ReadFile(const std::string& replica, const std::string& path, bool final,
                         std::vector<LogEntry>& out) {
  FileState& state = files_[replica];
  if (state.refused) return;
  uint64_t budget = options_.chunk_bytes;
  if (options_.max_bytes > 0) {
    if (bytes_read_ >= options_.max_bytes) {
      capped_ = true;
      return;
    }
    budget = std::min(budget, options_.max_bytes - bytes_read_);
  }
  std::optional<std::string> data = ReadBytes(replica, state, path, final, budget);
  if (!data) return;
  if (options_.max_bytes > 0 && bytes_read_ >= options_.max_bytes) capped_ = true;
  std::vector<LogEntry> entries;
  SplitLines(replica, state, *data, final && state.at_end, entries);
  data.reset();
  if (options_.since) {
    std::erase_if(entries, [&](const LogEntry& e) { return e.parsed_time < *options_.since; });
  }
  if (!options_.metrics || options_.metrics_only) {
    std::erase_if(entries, [this](const LogEntry& e) {
      return !MetricFilterKeeps(LogLine{e.replica, e.stream, e.parsed_time, e.text},
                                options_.metrics, options_.metrics_only);
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

std::string LogReader::FileOf(const std::string& replica) {
  std::string& name = files_[replica].name;
  if (!name.empty() || !folder_) return name.empty() ? replica + ".log" : name;
  const std::string metrics = replica + std::string(contract::kMetricsFileSuffix);
  name = options_.metrics_only && folder_->OpenFile(metrics).ok() ? metrics : replica + ".log";
  return name;
}

std::vector<LogEntry> LogReader::ReadNew(bool final) {
  std::vector<LogEntry> out;
  if (capped_) return out;
  if (!folder_ && options_.folder) {
    absl::StatusOr<contract::TenantFolder> opened = options_.folder();
    if (opened.ok()) folder_.emplace(std::move(*opened));
  }
  std::vector<std::pair<std::string, std::string>> files;  // replica, name in the folder
  if (!options_.replica.empty()) {
    files.emplace_back(options_.replica, FileOf(options_.replica));
  } else if (folder_) {
    for (const std::string& name : contract::ListFolder(*folder_)) {
      const std::filesystem::path p(name);
      if (p.extension() == ".log") files.emplace_back(p.stem().string(), FileOf(p.stem().string()));
    }
  }
  std::sort(files.begin(), files.end());
  caught_up_ = true;
  for (const auto& [replica, path] : files) {
    ReadFile(replica, path, final, out);
    const FileState& state = files_[replica];
    if (!state.at_end && !state.refused) caught_up_ = false;
  }
  std::stable_sort(out.begin(), out.end(), [](const LogEntry& a, const LogEntry& b) {
    return a.parsed_time < b.parsed_time;
  });
  if (capped_) {
    caught_up_ = true;
    Say(options_.replica.empty() ? "dlpd" : options_.replica,
        absl::StrCat("stopped after ", bytes_read_,
                     " bytes of logs, the most one request reads; ask for fewer lines with "
                     "tail or since"));
  }
  for (LogEntry& e : notes_) out.push_back(std::move(e));
  notes_.clear();
  return out;
}

}  // namespace dlp::server
