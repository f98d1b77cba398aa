// The per-process trace writer behind dlp/trace.h.
//
// Events are Chrome trace events, one JSON object per line inside a JSON array
// that is opened when the file is created and closed at exit:
//
//   [
//   {"name":"process_name","ph":"M","pid":3,"tid":0,"args":{"name":"rank 3"}},
//   {"name":"allreduce","cat":"comm","ph":"X","ts":12.5,"dur":80.1,"pid":3,"tid":0,"args":{...}},
//   ...
//   {"name":"trace_end","ph":"i","s":"p","ts":99.0,"pid":3,"tid":0}]
//
// A process that dies mid-run leaves the array unterminated (and maybe a
// partial last line); readers parse line by line and ignore both. Timestamps
// are CLOCK_MONOTONIC microseconds; "dlp_clock_offset" metadata says how far
// this host's clock is from rank 0's (see clock_sync.h).
//
// Events are buffered under one mutex and written every 64 KiB, every second
// and at exit. A file holds at most DLP_TRACE_MAX_BYTES (default 16 MiB, 0 for
// no budget): past it one "trace_truncated" event says so and later events
// are dropped, so tracing on by default cannot fill the disk. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dlp::runtime::trace {

inline constexpr int64_t kDefaultMaxBytes = int64_t{16} << 20;

// True when this process writes a trace (decided once, from the environment).
bool Enabled();
// Monotonic nanoseconds (steady_clock).
int64_t NowNs();

// `args` is the inside of a JSON object ("\"bytes\":4096,\"op\":\"sum\"") or
// empty. Names are escaped by the writer.
void Complete(std::string_view name, std::string_view category, int64_t start_ns,
              int64_t end_ns, std::string_view args = {});
void Instant(std::string_view name, std::string_view category, std::string_view args = {});
void Counter(std::string_view name, double value, long step);
// A metadata event ("ph":"M") with the given name and args.
void Metadata(std::string_view name, std::string_view args);
void Flush();

// This thread's span stack.
void Begin(std::string_view name, std::string_view category);
void End(std::string_view args = {});

// JSON string escaping (without the quotes).
std::string Escape(std::string_view s);

// For tests: the file this process writes ("" when tracing is off).
std::string Path();

}  // namespace dlp::runtime::trace
