/* dlp tracing and metrics: the C interface (C99 and C++), installed with libdlp.
 *
 * Spans are written per rank as Chrome trace events (open the files in
 * Perfetto or chrome://tracing; `dlp profile` merges them) to
 * $DLP_TRACE_DIR/rank-N.trace.json. dlp-run sets DLP_TRACE_DIR to its
 * --log-dir; without it tracing is off unless DLP_TRACE=1 (then the files go
 * to the current folder); DLP_TRACE=0 turns it off. See
 * docs/runtime-contract.md, "Traces and metrics".
 *
 * All functions are thread-safe and cheap when tracing is off (one atomic
 * load). Spans nest per thread: dlp_trace_end() closes the innermost span
 * the calling thread opened. */
#ifndef DLP_TRACE_H_
#define DLP_TRACE_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Non-zero when this process writes a trace. */
int dlp_trace_enabled(void);
/* Opens a span in the "user" category. `name` is copied. */
void dlp_trace_begin(const char* name);
/* Opens a span in `category` ("phase", "step", "comm", "user"...): `dlp
 * profile` draws one track per category and sums phases by name. */
void dlp_trace_begin_cat(const char* name, const char* category);
/* Closes the innermost open span of this thread (no-op when none is open). */
void dlp_trace_end(void);
/* Closes the innermost span and attaches a numeric argument to it. */
void dlp_trace_end_arg(const char* key, double value);
/* Writes buffered events to the file (also done every second and at exit). */
void dlp_trace_flush(void);
/* Reports a training metric: prints "DLP_METRIC name=value step=N" on stdout
 * (the one metrics channel: dlpd and `dlp metrics` read it from the logs) and,
 * when tracing, adds a counter event. `name` must not contain spaces or '='. */
void dlp_metric(const char* name, double value, long step);

#ifdef __cplusplus
}  /* extern "C" */

namespace dlp::runtime {

// Opens a span for the lifetime of the scope:
//   { dlp::runtime::TraceScope s("forward", "phase"); ... }
class TraceScope {
 public:
  explicit TraceScope(const char* name, const char* category = "user") {
    dlp_trace_begin_cat(name, category);
  }
  ~TraceScope() { dlp_trace_end(); }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
};

}  // namespace dlp::runtime
#endif

#endif /* DLP_TRACE_H_ */
