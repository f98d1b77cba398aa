// `dlp-run --relay-traces`: copies the lines the rank writes into its trace
// files (DLP_TRACE_DIR) into this task's output as contract relay lines
// (contract/trace_relay.h), for backends that see only a rank's output.
#pragma once

#include <map>
#include <string>

#include "launch/output.h"

namespace dlp::launch {

class TraceRelay {
 public:
  // `dir`: the ranks' trace folder; `out` receives the relay lines.
  TraceRelay(std::string dir, LineWriter* out) : dir_(std::move(dir)), out_(out) {}

  // Relays every complete line written since the last call. Cheap when
  // nothing changed (one stat per file); call it from the supervising loop
  // and once more after the rank has exited.
  void Pump();

 private:
  struct FileState {
    int64_t offset = 0;
    std::string partial;  // bytes after the last newline read
    bool skipping = false;  // inside a line too long to relay
  };
  void PumpFile(const std::string& name, FileState& state);

  std::string dir_;
  LineWriter* out_;
  std::map<std::string, FileState> files_;
};

}  // namespace dlp::launch
