// Windows over a running job's traces. Each rank writes timestamps of its own
// host's monotonic clock, plus one wall clock anchor (dlp_meta), so a wall
// clock instant maps to file time as steady_anchor + (wall - wall_anchor).
//
// RecordProfileWindow opens a window on a running job: it notes what each
// file had written, waits out the window, then re-reads the files until every
// rank has written past the window's end (the runtime writes in batches).
#include <algorithm>
#include <cmath>

#include "absl/time/clock.h"
#include "dlp/profile.h"
#include "profile/trace_events.h"

namespace dlp {
namespace {

// How often the window checks for cancellation, and re-reads the files after it.
constexpr absl::Duration kCancelPoll = absl::Milliseconds(50);
constexpr absl::Duration kReadPoll = absl::Milliseconds(250);

}  // namespace

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

absl::StatusOr<WindowedTraces> RecordProfileWindow(const TraceSource& source,
                                                   const ProfileWindowOptions& options) {
  auto cancelled = [&] { return options.cancelled && options.cancelled(); };
  absl::StatusOr<std::vector<TraceFile>> before = source();
  if (!before.ok()) return before.status();
  const std::map<std::string, double> flushed = LatestTimestamps(*before);
  if (options.on_open) options.on_open();
  const absl::Time start = absl::Now();
  while (absl::Now() < start + options.length && !cancelled()) absl::SleepFor(kCancelPoll);
  const absl::Duration length = std::min(options.length, absl::Now() - start);
  const absl::Time deadline = absl::Now() + options.write_grace;
  WindowedTraces out;
  out.windowed = true;
  for (;;) {
    absl::StatusOr<std::vector<TraceFile>> files = source();
    if (!files.ok()) return files.status();
    out.options = WindowOptions(*files, flushed, start, length);
    out.files = std::move(*files);
    if (WindowWritten(out.files, out.options) || absl::Now() >= deadline || cancelled() ||
        (options.running && !options.running())) {
      return out;
    }
    absl::SleepFor(kReadPoll);
  }
}

}  // namespace dlp
