// The C interface of dlp/trace.h over the trace writer, and dlp_metric.
#include <cstdio>
#include <mutex>

#include "absl/strings/str_format.h"
#include "dlp/trace.h"
#include "trace/tracer.h"

namespace tr = dlp::runtime::trace;

extern "C" {

int dlp_trace_enabled(void) { return tr::Enabled() ? 1 : 0; }

void dlp_trace_begin(const char* name) { dlp_trace_begin_cat(name, "user"); }

void dlp_trace_begin_cat(const char* name, const char* category) {
  if (!tr::Enabled()) return;
  tr::Begin(name != nullptr ? name : "", category != nullptr ? category : "user");
}

void dlp_trace_end(void) { tr::End(); }

void dlp_trace_end_arg(const char* key, double value) {
  if (!tr::Enabled()) return;
  tr::End(absl::StrFormat("\"%s\":%.9g", tr::Escape(key != nullptr ? key : "value"), value));
}

void dlp_trace_flush(void) { tr::Flush(); }

void dlp_metric(const char* name, double value, long step) {
  static std::mutex mu;  // whole lines, even from several threads
  if (name == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mu);
    std::printf("DLP_METRIC %s=%.9g step=%ld\n", name, value, step);
    std::fflush(stdout);
  }
  tr::Counter(name, value, step);
}

}  // extern "C"
