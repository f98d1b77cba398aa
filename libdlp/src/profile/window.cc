// Windows over a running job's traces. Each rank writes timestamps of its own
// host's monotonic clock, plus one wall clock anchor (dlp_meta), so a wall
// clock instant maps to file time as steady_anchor + (wall - wall_anchor).
#include <algorithm>
#include <cmath>

#include "dlp/profile.h"
#include "profile/trace_events.h"

namespace dlp {

ProfileOptions WindowOptions(const std::vector<TraceFile>& files,
                             const std::map<std::string, double>& flushed, absl::Time start,
                             absl::Duration length) {
  ProfileOptions options;
  const double start_wall_us = absl::ToDoubleMicroseconds(start - absl::UnixEpoch());
  const double length_us = absl::ToDoubleMicroseconds(length);
  for (const TraceFile& f : files) {
    const internal::RankTrace t = internal::ParseTraceFile(f);
    auto it = flushed.find(f.name);
    const bool had = it != flushed.end() && std::isfinite(it->second);
    double begin;
    if (t.has_anchor) {
      begin = t.steady_anchor_us + (start_wall_us - t.wall_anchor_us);
      if (had) begin = std::max(begin, it->second);
    } else if (had) {
      begin = it->second;
    } else {
      continue;  // nothing to place the window by: every event counts
    }
    options.after_us[f.name] = begin;
    options.before_us[f.name] = begin + length_us;
  }
  return options;
}

bool WindowWritten(const std::vector<TraceFile>& files, const ProfileOptions& window) {
  const std::map<std::string, double> latest = LatestTimestamps(files);
  for (const auto& [name, end] : window.before_us) {
    auto it = latest.find(name);
    if (it == latest.end() || it->second < end) return false;
  }
  return true;
}

}  // namespace dlp
