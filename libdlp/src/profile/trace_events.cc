#include "profile/trace_events.h"

#include <algorithm>
#include <cstdlib>
#include <regex>

namespace dlp::internal {
namespace {

using nlohmann::json;

void Add(RankTrace& trace, const json& e) {
  if (!e.is_object()) return;
  TraceEvent ev;
  ev.name = e.value("name", "");
  ev.cat = e.value("cat", "");
  ev.ph = e.value("ph", "");
  if (e.contains("ts") && e["ts"].is_number()) ev.ts = e["ts"].get<double>();
  if (e.contains("dur") && e["dur"].is_number()) ev.dur = e["dur"].get<double>();
  if (e.contains("tid") && e["tid"].is_number_integer()) ev.tid = e["tid"].get<int>();
  if (e.contains("args")) ev.args = e["args"];
  if (ev.ph == "M") {
    const json& a = ev.args;
    if (ev.name == "dlp_meta" && a.is_object()) {
      trace.rank = a.value("rank", trace.rank);
      trace.restart = a.value("restart", trace.restart);
      trace.host = a.value("host", trace.host);
      if (a.contains("wall_anchor_us") && a["wall_anchor_us"].is_number() &&
          a.contains("steady_anchor_us") && a["steady_anchor_us"].is_number()) {
        trace.has_anchor = true;
        trace.wall_anchor_us = a["wall_anchor_us"].get<double>();
        trace.steady_anchor_us = a["steady_anchor_us"].get<double>();
      }
    } else if (ev.name == "dlp_clock_offset" && a.is_object()) {
      trace.offset_us = a.value("offset_us", 0.0);
    }
    trace.metadata.push_back(std::move(ev));
    return;
  }
  if (trace.rank < 0 && e.contains("pid") && e["pid"].is_number_integer()) {
    trace.rank = e["pid"].get<int>();
  }
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
