#include "profile/trace_events.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <regex>

namespace dlp::internal {
namespace {

using nlohmann::json;

// json::value() throws when the field holds another type; a trace file is
// anyone's text, so each field is read only when its type is the expected one.
std::string String(const json& o, const char* key, const std::string& fallback) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : fallback;
}

int Int(const json& o, const char* key, int fallback) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) return fallback;
  const int64_t v = it->get<int64_t>();
  return v >= INT32_MIN && v <= INT32_MAX ? static_cast<int>(v) : fallback;
}

double Number(const json& o, const char* key, double fallback) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : fallback;
}

void Add(RankTrace& trace, const json& e) {
  if (!e.is_object()) return;
  TraceEvent ev;
  ev.name = String(e, "name", "");
  ev.cat = String(e, "cat", "");
  ev.ph = String(e, "ph", "");
  ev.ts = Number(e, "ts", 0);
  ev.dur = Number(e, "dur", 0);
  ev.tid = Int(e, "tid", 0);
  if (e.contains("args")) ev.args = e["args"];
  if (ev.ph == "M") {
    const json& a = ev.args;
    if (ev.name == "dlp_meta" && a.is_object()) {
      trace.rank = Int(a, "rank", trace.rank);
      trace.restart = Int(a, "restart", trace.restart);
      trace.host = String(a, "host", trace.host);
      if (a.contains("wall_anchor_us") && a["wall_anchor_us"].is_number() &&
          a.contains("steady_anchor_us") && a["steady_anchor_us"].is_number()) {
        trace.has_anchor = true;
        trace.wall_anchor_us = a["wall_anchor_us"].get<double>();
        trace.steady_anchor_us = a["steady_anchor_us"].get<double>();
      }
    } else if (ev.name == "dlp_clock_offset" && a.is_object()) {
      trace.offset_us = Number(a, "offset_us", 0.0);
    }
    trace.metadata.push_back(std::move(ev));
    return;
  }
  if (trace.rank < 0) trace.rank = Int(e, "pid", trace.rank);
  if (ev.ph == "X" || ev.ph == "i" || ev.ph == "I" || ev.ph == "C") {
    trace.events.push_back(std::move(ev));
  }
}

}  // namespace

FileWindow WindowOf(const ProfileOptions& options, const std::string& file) {
  FileWindow w;
  if (auto it = options.after_us.find(file); it != options.after_us.end()) w.after = it->second;
  if (auto it = options.before_us.find(file); it != options.before_us.end()) w.before = it->second;
  return w;
}

RankTrace ParseTraceFile(const TraceFile& file) {
  RankTrace trace;
  trace.file = file.name;
  static const std::regex kName(R"(rank-(\d+)(?:\.restart-(\d+))?\.trace\.json)");
  std::smatch m;
  int name_rank = -1;
  if (std::regex_search(file.name, m, kName)) {
    name_rank = std::atoi(m[1].str().c_str());
    if (m[2].matched) trace.restart = std::atoi(m[2].str().c_str());
  }
  json whole = json::parse(file.content, nullptr, /*allow_exceptions=*/false);
  if (whole.is_array()) {
    for (const json& e : whole) Add(trace, e);
  } else if (whole.is_object() && whole.contains("traceEvents")) {
    for (const json& e : whole["traceEvents"]) Add(trace, e);
  } else {
    size_t pos = 0;
    while (pos < file.content.size()) {
      size_t end = file.content.find('\n', pos);
      if (end == std::string::npos) end = file.content.size();
      std::string_view line(file.content.data() + pos, end - pos);
      pos = end + 1;
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
      if (!line.empty() && line.front() == '[') line.remove_prefix(1);
      if (!line.empty() && line.back() == ']') line.remove_suffix(1);
      if (!line.empty() && line.back() == ',') line.remove_suffix(1);
      if (line.empty()) continue;
      json e = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
      if (!e.is_discarded()) Add(trace, e);  // a torn last line is skipped
    }
  }
  if (trace.rank < 0) trace.rank = std::max(name_rank, 0);
  std::stable_sort(trace.events.begin(), trace.events.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.ts < b.ts; });
  return trace;
}

std::vector<RankTrace> ParseTraceFiles(const std::vector<TraceFile>& files) {
  std::vector<RankTrace> out;
  for (const TraceFile& f : files) out.push_back(ParseTraceFile(f));
  std::stable_sort(out.begin(), out.end(), [](const RankTrace& a, const RankTrace& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.restart < b.restart;
  });
  return out;
}

}  // namespace dlp::internal
