// Reading one rank's trace file, tolerantly: a file the runtime is still
// writing, or one left by a process that died, has no closing "]" and maybe a
// partial last line; both are ignored (one event per line, see
// runtime/src/trace/tracer.h). A complete JSON array or {"traceEvents":[...]}
// on any layout is read as well.
#pragma once

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
  std::vector<TraceEvent> events;  // "X", "i" and "C" events, by start time
  std::vector<TraceEvent> metadata;
};

RankTrace ParseTraceFile(const TraceFile& file);
std::vector<RankTrace> ParseTraceFiles(const std::vector<TraceFile>& files);

}  // namespace dlp::internal
