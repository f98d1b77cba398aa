#include "backends/slurm/logs.h"

#include <sys/stat.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "contract/log_line.h"
#include "contract/metric_line.h"
#include "dlp/profile.h"
#include "dlp/status.h"

namespace dlp::internal {
namespace {

namespace fs = std::filesystem;

constexpr absl::Duration kPollInterval = absl::Milliseconds(200);

struct FileState {
  std::string replica;
  std::string path;
  std::string rotated;  // NAME.log.1, read whole before `path` on the first read
  std::streamoff offset = 0;
  std::string partial;
};

absl::Time FileTime(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return absl::Now();
  return absl::TimeFromTimespec(st.st_mtim);
}

// A line in the contract's format (contract/log_line.h); anything else, such as
// Slurm's own messages in slurm.out, is stdout at `fallback`.
LogLine ParseLine(const std::string& replica, const std::string& line, absl::Time fallback) {
  LogLine out{replica, "stdout", fallback, line};
  if (auto parsed = contract::ParseLogFileLine(line)) {
    out.time = parsed->time;
    out.stream = std::string(contract::LogStreamName(parsed->stream));
    out.text = std::move(parsed->text);
  }
  return out;
}

// The files to read, by replica name; rediscovered at every poll because each
// task creates its file when it starts. Metrics come from each replica's
// metrics file, which rotation leaves whole (its log for a job written before).
void Discover(const std::string& job_dir, const LogOptions& options,
              std::map<std::string, FileState>* files) {
  std::error_code ec;
  auto add = [&](const std::string& replica, const std::string& path) {
    if (!options.replica.empty() && options.replica != replica) return;
    if (files->count(replica) != 0) return;
    const std::string metrics =
        absl::StrCat(job_dir, "/logs/", replica, std::string(contract::kMetricsFileSuffix));
    if (options.metrics_only && fs::exists(metrics, ec)) {
      (*files)[replica] = FileState{replica, metrics};
    } else {
      const std::string rotated = path + ".1";
      (*files)[replica] = FileState{replica, path, fs::exists(rotated, ec) ? rotated : ""};
    }
  };
  for (const auto& entry : fs::directory_iterator(job_dir + "/logs", ec)) {
    std::string name = entry.path().filename().string();
    if (absl::EndsWith(name, ".log")) add(std::string(absl::StripSuffix(name, ".log")), entry.path());
  }
  if (!options.metrics_only && fs::exists(job_dir + "/slurm.out", ec)) {
    add("slurm", job_dir + "/slurm.out");
  }
}

std::string ReadFrom(const std::string& path, std::streamoff offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(offset);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// New lines of one file; the partial last line too when `final`.
std::vector<LogLine> ReadNew(FileState* f, bool final) {
  std::vector<LogLine> lines;
  if (!f->rotated.empty()) {
    // Ends with a whole line: rotation happens between lines.
    f->partial += ReadFrom(f->rotated, 0);
    f->rotated.clear();
  }
  struct stat st;
  if (stat(f->path.c_str(), &st) == 0 && st.st_size < f->offset) f->offset = 0;  // rotated
  const std::string chunk = ReadFrom(f->path, f->offset);
  f->offset += static_cast<std::streamoff>(chunk.size());
  f->partial += chunk;
  const absl::Time fallback = FileTime(f->path);
  size_t start = 0;
  for (size_t nl; (nl = f->partial.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(ParseLine(f->replica, f->partial.substr(start, nl - start), fallback));
  }
  f->partial.erase(0, start);
  if (final && !f->partial.empty()) {
    lines.push_back(ParseLine(f->replica, f->partial, fallback));
    f->partial.clear();
  }
  return lines;
}

bool Wanted(const LogLine& line, const LogOptions& options) {
  return (!options.since || line.time >= *options.since) &&
         MetricFilterKeeps(line, options.metrics, options.metrics_only);
}

}  // namespace

absl::Status ReadJobLogs(const std::string& job_dir, const LogOptions& options,
                         const LogSink& sink,
                         const std::function<absl::StatusOr<bool>()>& finished) {
  std::map<std::string, FileState> files;
  bool done = !options.follow;
  if (options.follow) {
    DLP_ASSIGN_OR_RETURN(done, finished());
  }
  // What is there now: per replica (with --tail), then merged by time.
  Discover(job_dir, options, &files);
  std::vector<LogLine> first;
  for (auto& [name, f] : files) {
    std::vector<LogLine> lines = ReadNew(&f, done);
    std::erase_if(lines, [&](const LogLine& l) { return !Wanted(l, options); });
    if (options.tail >= 0 && lines.size() > static_cast<size_t>(options.tail)) {
      lines.erase(lines.begin(), lines.end() - options.tail);
    }
    first.insert(first.end(), lines.begin(), lines.end());
  }
  std::stable_sort(first.begin(), first.end(),
                   [](const LogLine& a, const LogLine& b) { return a.time < b.time; });
  for (const LogLine& line : first) {
    if (!sink(line)) return absl::OkStatus();
  }
  while (!done) {
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(kPollInterval));
    DLP_ASSIGN_OR_RETURN(done, finished());
    Discover(job_dir, options, &files);
    for (auto& [name, f] : files) {
      for (const LogLine& line : ReadNew(&f, done)) {
        if (Wanted(line, options) && !sink(line)) return absl::OkStatus();
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace dlp::internal
