// Merging rank traces into one Chrome trace, and the profile as JSON.
//
// pid = rank; each category (step, phase, comm, ...) of each thread gets its
// own track (tid), named in thread_name metadata, so that nested spans of a
// kind line up across ranks in Perfetto. Timestamps move onto rank 0's clock
// (the dlp_clock_offset of each file) and then start at 0.
#include <algorithm>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "dlp/profile.h"
#include "nlohmann/json.hpp"
#include "profile/trace_events.h"

namespace dlp {
namespace {

using nlohmann::json;

int CategoryIndex(const std::string& cat) {
  static const std::map<std::string, int> kOrder = {
      {"step", 0}, {"phase", 1}, {"comm", 2}, {"lifecycle", 3}, {"user", 4}, {"metric", 5}};
  auto it = kOrder.find(cat);
  return it != kOrder.end() ? it->second : 6;
}

}  // namespace

std::map<std::string, double> LatestTimestamps(const std::vector<TraceFile>& files) {
  std::map<std::string, double> out;
  for (const TraceFile& f : files) {
    internal::RankTrace t = internal::ParseTraceFile(f);
    double latest = -std::numeric_limits<double>::infinity();
    for (const internal::TraceEvent& e : t.events) latest = std::max(latest, e.ts);
    out[f.name] = latest;
  }
  return out;
}

absl::StatusOr<std::string> MergeTraces(const std::vector<TraceFile>& files,
                                        const ProfileOptions& options) {
  std::vector<internal::RankTrace> traces = internal::ParseTraceFiles(files);
  double origin = std::numeric_limits<double>::infinity();
  for (const auto& t : traces) {
    const internal::FileWindow window = internal::WindowOf(options, t.file);
    for (const auto& e : t.events) {
      if (window.Contains(e.ts)) origin = std::min(origin, e.ts + t.offset_us);
    }
  }
  if (origin == std::numeric_limits<double>::infinity()) {
    return absl::InvalidArgumentError("no trace events to merge");
  }
  json out = json::array();
  std::map<std::pair<int, int>, std::string> tracks;
  std::map<int, std::string> processes;
  for (const auto& t : traces) {
    const internal::FileWindow window = internal::WindowOf(options, t.file);
    processes[t.rank] = t.host.empty() ? absl::StrCat("rank ", t.rank)
                                       : absl::StrCat("rank ", t.rank, " (", t.host, ")");
    for (const auto& e : t.events) {
      if (!window.Contains(e.ts)) continue;
      const int cat = CategoryIndex(e.cat);
      const int tid = cat * 100 + e.tid;
      std::string track = e.cat.empty() ? "other" : e.cat;
      if (e.tid != 0) absl::StrAppend(&track, " (thread ", e.tid, ")");
      tracks[{t.rank, tid}] = track;
      json j = {{"name", e.name}, {"ph", e.ph}, {"pid", t.rank}, {"tid", tid},
                {"ts", e.ts + t.offset_us - origin}};
      if (!e.cat.empty()) j["cat"] = e.cat;
      if (e.ph == "X") j["dur"] = e.dur;
      if (e.ph == "i" || e.ph == "I") j["s"] = "t";
      if (!e.args.is_null()) j["args"] = e.args;
      if (t.restart > 0 && j.contains("args") && j["args"].is_object()) {
        j["args"]["restart"] = t.restart;
      }
      out.push_back(std::move(j));
    }
  }
  for (const auto& [rank, name] : processes) {
    out.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", rank}, {"tid", 0},
                   {"args", {{"name", name}}}});
    out.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", rank}, {"tid", 0},
                   {"args", {{"sort_index", rank}}}});
  }
  for (const auto& [key, name] : tracks) {
    out.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", key.first}, {"tid", key.second},
                   {"args", {{"name", name}}}});
    out.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", key.first},
                   {"tid", key.second}, {"args", {{"sort_index", key.second}}}});
  }
  json doc = {{"traceEvents", std::move(out)}, {"displayTimeUnit", "ms"}};
  return doc.dump();
}

std::string ProfileToJson(const Profile& p) {
  json ranks = json::array();
  for (const RankProfile& r : p.per_rank) {
    json phases = json::object();
    for (const PhaseTime& ph : r.phases) phases[ph.name] = ph.mean_ms;
    ranks.push_back({{"rank", r.rank}, {"host", r.host}, {"steps", r.steps},
                     {"stepP50Ms", r.step_p50_ms}, {"stepP95Ms", r.step_p95_ms},
                     {"stepMaxMs", r.step_max_ms}, {"commMs", r.comm_ms},
                     {"workMs", r.work_ms}, {"phasesMs", phases},
                     {"clockOffsetUs", r.clock_offset_us}});
  }
  json restarts = json::array();
  for (const RestartSegment& s : p.restarts) {
    restarts.push_back({{"restart", s.restart}, {"steps", s.steps}, {"seconds", s.seconds},
                        {"stepsPerSecond", s.steps_per_s},
                        {"samplesPerSecond", s.samples_per_s}});
  }
  json collectives = json::object();
  for (const CollectiveStats& c : p.collectives) {
    collectives[c.op] = {{"count", c.count},
                         {"bytes", c.bytes},
                         {"busbwGBps", c.busbw_GBps},
                         {"medianMs", c.median_ms}};
  }
  json j = {{"ranks", p.ranks},
            {"perRank", ranks},
            {"commShare", p.comm_share},
            {"computeShare", p.compute_share},
            {"overlappedCommShare", p.overlapped_comm_share},
            {"allreduce",
             {{"count", p.allreduce_count},
              {"bytes", p.allreduce_bytes},
              {"busbwGBps", p.allreduce_busbw_GBps}}},
            {"collectives", collectives},
            {"restarts", restarts},
            {"straggler", nullptr}};
  if (p.straggler) {
    j["straggler"] = {{"rank", p.straggler->rank}, {"ratio", p.straggler->ratio},
                      {"phase", p.straggler->phase},
                      {"phaseExcessMs", p.straggler->phase_excess_ms},
                      {"message", p.straggler->Describe()}};
  }
  return j.dump(2);
}

}  // namespace dlp
