// Trace lines relayed through a rank's output (docs/runtime-contract.md,
// "Traces"): where a backend sees only the output of a rank (a Kubernetes
// pod's log), `dlp-run --relay-traces` copies each line of the rank's trace
// files into it as "DLP_TRACE_LINE rank-3.trace.json <line>"; the backend
// rebuilds the files from those lines and hides them from `dlp logs`.
// Written and parsed only here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dlp::contract {

inline constexpr std::string_view kTraceRelayPrefix = "DLP_TRACE_LINE ";

// The output line (without its newline) that carries `line` of trace file `file`.
std::string FormatTraceRelayLine(std::string_view file, std::string_view line);

// Whether an output line is a relay line (to hide it from the program's own
// output), whatever it names.
inline bool IsTraceRelayLine(std::string_view text) {
  return text.substr(0, kTraceRelayPrefix.size()) == kTraceRelayPrefix;
}

struct TraceRelayLine {
  std::string file;  // "rank-3.trace.json"
  std::string line;  // as in the file, without its newline
};

// nullopt for any other output line, and for a file name that is not a plain
// "*.trace.json" name (a relayed line never names a path).
std::optional<TraceRelayLine> ParseTraceRelayLine(std::string_view text);

}  // namespace dlp::contract
