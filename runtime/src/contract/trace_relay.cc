#include "contract/trace_relay.h"

namespace dlp::contract {
namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

std::string FormatTraceRelayLine(std::string_view file, std::string_view line) {
  std::string out(kTraceRelayPrefix);
  out.append(file).append(" ").append(line);
  return out;
}

std::optional<TraceRelayLine> ParseTraceRelayLine(std::string_view text) {
  if (!IsTraceRelayLine(text)) return std::nullopt;
  text.remove_prefix(kTraceRelayPrefix.size());
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view file = text.substr(0, space);
  if (!EndsWith(file, ".trace.json") || file.find('/') != std::string_view::npos ||
      file.front() == '.') {
    return std::nullopt;
  }
  return TraceRelayLine{std::string(file), std::string(text.substr(space + 1))};
}

}  // namespace dlp::contract
