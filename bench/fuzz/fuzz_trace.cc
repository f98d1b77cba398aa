// The trace reader (libdlp/src/profile): a rank's trace file, as a process that
// died mid-write or anyone else may leave it, parses or is skipped; the
// summary and the merge over it never crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dlp/profile.h"
#include "profile/trace_events.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<dlp::TraceFile> files = {
      {"rank-0.trace.json", std::string(reinterpret_cast<const char*>(data), size)}};
  (void)dlp::internal::ParseTraceFiles(files);
  (void)dlp::SummarizeTraces(files, {});
  (void)dlp::MergeTraces(files, {});
  (void)dlp::LatestTimestamps(files);
  return 0;
}
