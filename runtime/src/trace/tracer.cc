#include "trace/tracer.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "contract/env_names.h"
#include "contract/files.h"

namespace dlp::runtime::trace {
namespace {

constexpr size_t kFlushBytes = 64 * 1024;
constexpr int64_t kFlushEveryNs = 1'000'000'000;

struct Writer {
  std::mutex mu;
  int fd = -1;
  int rank = 0;
  std::string path;
  std::string buffer;
  int64_t last_flush_ns = 0;
  bool closed = false;
  // The file's budget (DLP_TRACE_MAX_BYTES; 0: none) and what it holds.
  int64_t max_bytes = 0;
  int64_t bytes = 0;
  bool truncated = false;
};

Writer& W() {
  static Writer* w = new Writer();  // never destroyed: used from atexit
  return *w;
}

std::atomic<int> g_state{-1};  // -1 undecided, 0 off, 1 on
std::atomic<int> g_next_tid{0};
std::once_flag g_once;

int Tid() {
  thread_local int tid = g_next_tid.fetch_add(1);
  return tid;
}

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

int EnvInt(const char* name, int fallback) {
  const char* v = Env(name);
  return v != nullptr ? std::atoi(v) : fallback;
}

// A whole number of bytes; `fallback` when unset or not one.
int64_t EnvBytes(const char* name, int64_t fallback) {
  const char* v = Env(name);
  char* end = nullptr;
  const long long n = v != nullptr ? std::strtoll(v, &end, 10) : -1;  // NOLINT(runtime/int)
  return v != nullptr && *end == '\0' && n >= 0 ? n : fallback;
}

// Caller holds w.mu.
void WriteOut(Writer& w) {
  size_t off = 0;
  while (off < w.buffer.size()) {
    ssize_t n = ::write(w.fd, w.buffer.data() + off, w.buffer.size() - off);
    if (n <= 0) break;  // a full disk loses events, never the program
    off += static_cast<size_t>(n);
  }
  w.buffer.clear();
  w.last_flush_ns = NowNs();
}

void AppendLine(std::string line) {
  Writer& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  if (w.fd < 0 || w.closed || w.truncated) return;
  line += ",\n";
  if (w.max_bytes > 0 && w.bytes + static_cast<int64_t>(line.size()) > w.max_bytes) {
    // Past the budget one event says so, and the file keeps what came before.
    w.truncated = true;
    line = absl::StrFormat(
        "{\"name\":\"trace_truncated\",\"ph\":\"i\",\"s\":\"p\",\"ts\":%.3f,\"pid\":%d,"
        "\"tid\":0,\"args\":{\"max_bytes\":%d}},\n",
        NowNs() / 1e3, w.rank, w.max_bytes);
  }
  w.bytes += static_cast<int64_t>(line.size());
  w.buffer += line;
  if (w.buffer.size() >= kFlushBytes || NowNs() - w.last_flush_ns >= kFlushEveryNs) WriteOut(w);
}

void CloseAtExit() {
  Writer& w = W();
  std::string end = absl::StrFormat(
      "{\"name\":\"trace_end\",\"ph\":\"i\",\"s\":\"p\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d}]\n",
      NowNs() / 1e3, w.rank, Tid());
  std::lock_guard<std::mutex> lock(w.mu);
  if (w.fd < 0 || w.closed) return;
  w.buffer += end;
  WriteOut(w);
  w.closed = true;
  ::close(w.fd);
  w.fd = -1;
}

std::string Hostname() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

void Init() {
  const char* flag = Env(contract::env::kTrace);
  const char* dir = Env(contract::env::kTraceDir);
  bool on = flag != nullptr ? std::string(flag) != "0" : dir != nullptr;
  if (!on) {
    g_state.store(0);
    return;
  }
  Writer& w = W();
  w.rank = EnvInt(contract::env::kRank, EnvInt("DLP_RANK", 0));
  const int restart = EnvInt(contract::env::kRestartCount, 0);
  std::string folder = dir != nullptr ? dir : ".";
  w.path = restart == 0 ? absl::StrCat(folder, "/rank-", w.rank, ".trace.json")
                        : absl::StrCat(folder, "/rank-", w.rank, ".restart-", restart,
                                       ".trace.json");
  w.fd = contract::OpenPrivateFile(w.path, O_TRUNC);
  if (w.fd < 0) {
    std::fprintf(stderr, "dlp trace: cannot write %s; tracing off\n", w.path.c_str());
    g_state.store(0);
    return;
  }
  w.buffer = "[\n";
  w.last_flush_ns = NowNs();
  w.max_bytes = EnvBytes(contract::env::kTraceMaxBytes, kDefaultMaxBytes);
  g_state.store(1);
  const auto wall = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  const char* job = Env(contract::env::kJobId);
  const char* replica = Env(contract::env::kReplica);
  Metadata("process_name", absl::StrFormat("\"name\":\"rank %d\"", w.rank));
  Metadata("process_sort_index", absl::StrFormat("\"sort_index\":%d", w.rank));
  Metadata("dlp_meta",
           absl::StrFormat("\"rank\":%d,\"world_size\":%d,\"restart\":%d,\"host\":\"%s\","
                           "\"pid\":%d,\"job\":\"%s\",\"replica\":\"%s\","
                           "\"wall_anchor_us\":%d,\"steady_anchor_us\":%.3f",
                           w.rank, EnvInt("WORLD_SIZE", 1), restart, Escape(Hostname()),
                           static_cast<int>(::getpid()), Escape(job ? job : ""),
                           Escape(replica ? replica : ""), wall, NowNs() / 1e3));
  if (restart > 0) Instant("restart", "lifecycle", absl::StrFormat("\"restart\":%d", restart));
  std::atexit(CloseAtExit);
}

struct Open {
  std::string name;
  std::string category;
  int64_t start_ns;
};

std::vector<Open>& Stack() {
  thread_local std::vector<Open> stack;
  return stack;
}

std::string Event(std::string_view name, std::string_view category, const char* ph,
                  std::string_view extra, std::string_view args) {
  std::string line = absl::StrCat("{\"name\":\"", Escape(name), "\"");
  if (!category.empty()) absl::StrAppend(&line, ",\"cat\":\"", Escape(category), "\"");
  absl::StrAppend(&line, ",\"ph\":\"", ph, "\"");
  line.append(extra);
  absl::StrAppend(&line, ",\"pid\":", W().rank, ",\"tid\":", Tid());
  if (!args.empty()) {
    line += ",\"args\":{";
    line.append(args);
    line += "}";
  }
  line += "}";
  return line;
}

}  // namespace

bool Enabled() {
  int s = g_state.load(std::memory_order_relaxed);
  if (s >= 0) return s == 1;
  std::call_once(g_once, Init);
  return g_state.load() == 1;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += c;
        }
    }
  }
  return out;
}

void Complete(std::string_view name, std::string_view category, int64_t start_ns,
              int64_t end_ns, std::string_view args) {
  if (!Enabled()) return;
  AppendLine(Event(name, category, "X",
                   absl::StrFormat(",\"ts\":%.3f,\"dur\":%.3f", start_ns / 1e3,
                                   (end_ns - start_ns) / 1e3),
                   args));
}

void Instant(std::string_view name, std::string_view category, std::string_view args) {
  if (!Enabled()) return;
  AppendLine(Event(name, category, "i", absl::StrFormat(",\"s\":\"p\",\"ts\":%.3f", NowNs() / 1e3),
                   args));
}

void Counter(std::string_view name, double value, long step) {
  if (!Enabled()) return;
  AppendLine(Event(name, "metric", "C", absl::StrFormat(",\"ts\":%.3f", NowNs() / 1e3),
                   absl::StrFormat("\"value\":%.9g,\"step\":%d", value, step)));
}

void Metadata(std::string_view name, std::string_view args) {
  if (!Enabled()) return;
  AppendLine(Event(name, "", "M", "", args));
}

void Flush() {
  if (!Enabled()) return;
  Writer& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  if (w.fd >= 0 && !w.closed) WriteOut(w);
}

void Begin(std::string_view name, std::string_view category) {
  if (!Enabled()) return;
  Stack().push_back({std::string(name), std::string(category), NowNs()});
}

void End(std::string_view args) {
  if (!Enabled()) return;
  auto& stack = Stack();
  if (stack.empty()) return;
  Open open = std::move(stack.back());
  stack.pop_back();
  Complete(open.name, open.category, open.start_ns, NowNs(), args);
}

std::string Path() { return Enabled() ? W().path : ""; }

}  // namespace dlp::runtime::trace
