// dlpd's log reader (server/logs/log_reader.h): the last N lines of
// a replica's log, read backwards from the end (and from the rotated file),
// are the lines a whole read ends with.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dlp/profile.h"
#include "server/logs/log_reader.h"

namespace {

std::string Dir() {
  static const std::string dir = [] {
    std::string base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
    std::string path = base + "/dlp-fuzz-log-tail-XXXXXX";
    if (mkdtemp(path.data()) == nullptr) abort();
    return path;
  }();
  return dir;
}

void Write(const std::string& path, std::string_view text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(text.data(), text.size());
}

// Text and stream of each entry, sorted: the reader orders by time, and a
// foreign line at the start of a tail has no earlier line to take its time from.
std::vector<std::string> Lines(const std::vector<dlp::server::LogEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.stream + " " + e.text);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const int64_t tail = data[0] % 16;
  const bool final = data[1] & 1;
  const bool metrics = data[1] & 2;
  const size_t block = 1 + data[2] % 64;  // unused by the reader; splits rotated/current
  std::string_view text(reinterpret_cast<const char*>(data) + 3, size - 3);
  std::string rotated;
  if (data[1] & 4) {
    const size_t cut = std::min(text.size(), block * 4);
    rotated = std::string(text.substr(0, cut));
    if (!rotated.empty() && rotated.back() != '\n') rotated += '\n';  // as the writer leaves it
    text.remove_prefix(cut);
  }
  const std::string dir = Dir();
  const std::string log = dir + "/worker-0.log";
  // Reference: every line of the whole, as LogReader read it before tails
  // were read backwards: parsed in order, filtered, then the last N.
  const std::string whole = rotated + std::string(text);
  std::vector<dlp::server::LogEntry> all;
  size_t start = 0;
  while (start < whole.size()) {
    size_t nl = whole.find('\n', start);
    if (nl == std::string::npos && !final) break;  // a partial line waits for its newline
    if (nl == std::string::npos) nl = whole.size();
    all.push_back(dlp::server::LogEntryFromLine("worker-0",
                                                absl::string_view(whole).substr(start, nl - start),
                                                all.empty() ? nullptr : &all.back()));
    start = nl + 1;
  }
  if (!metrics) {
    std::erase_if(all, [](const dlp::server::LogEntry& e) {
      return dlp::IsMetricLine(dlp::LogLine{e.replica, e.stream, e.parsed_time, e.text});
    });
  }
  if (all.size() > static_cast<size_t>(tail)) all.erase(all.begin(), all.end() - tail);
  // The same lines as dlp-run leaves them after a rotation, read from the end.
  unlink((log + ".1").c_str());
  if (!rotated.empty()) Write(log + ".1", rotated);
  Write(log, text);
  dlp::server::LogReader tailed({dlp::server::LogFolderAt(dir), "", tail, std::nullopt, metrics});
  const std::vector<std::string> got = Lines(tailed.ReadNew(final)), want = Lines(all);
  if (got != want) {
    for (const std::string& l : got) fprintf(stderr, "tail:  [%s]\n", l.c_str());
    for (const std::string& l : want) fprintf(stderr, "whole: [%s]\n", l.c_str());
    __builtin_trap();
  }
  return 0;
}
