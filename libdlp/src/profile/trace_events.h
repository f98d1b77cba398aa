// Reading one rank's trace file, tolerantly: a file the runtime is still
// writing, or one left by a process that died, has no closing "]" and maybe a
// partial last line; both are ignored (one event per line, see
// runtime/src/trace/tracer.h). A complete JSON array or {"traceEvents":[...]}
// on any layout is read as well.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "dlp/profile.h"
#include "nlohmann/json.hpp"

namespace dlp::internal {

struct TraceEvent {
  std::string name;
  std::string cat;
  std::string ph;
  double ts = 0;   // µs, the file's own clock
  double dur = 0;  // µs, "X" events
  int tid = 0;
  nlohmann::json args;  // object or null
};

struct RankTrace {
  std::string file;
  int rank = -1;  // from dlp_meta, else the file name, else the events' pid
  int restart = 0;
  std::string host;
  double offset_us = 0;  // from dlp_clock_offset
  // From dlp_meta: the wall clock (µs since the epoch) at a moment of the
  // file's clock; has_anchor when both were present.
  bool has_anchor = false;
  double wall_anchor_us = 0, steady_anchor_us = 0;
  std::vector<TraceEvent> events;  // "X", "i" and "C" events, by start time
  std::vector<TraceEvent> metadata;
};

// The events of one file that ProfileOptions selects: after < ts < before.
struct FileWindow {
  double after = -std::numeric_limits<double>::infinity();
  double before = std::numeric_limits<double>::infinity();
  bool Contains(double ts) const { return ts > after && ts < before; }
};
FileWindow WindowOf(const ProfileOptions& options, const std::string& file);

RankTrace ParseTraceFile(const TraceFile& file);
std::vector<RankTrace> ParseTraceFiles(const std::vector<TraceFile>& files);

}  // namespace dlp::internal
