#include "launch/trace_relay.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/match.h"
#include "contract/log_line.h"
#include "contract/trace_relay.h"

namespace dlp::launch {

void TraceRelay::Pump() {
  DIR* d = opendir(dir_.c_str());
  if (d == nullptr) return;  // no trace yet (or tracing off)
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (absl::EndsWith(name, ".trace.json")) PumpFile(name, files_[name]);
  }
  closedir(d);
}

void TraceRelay::PumpFile(const std::string& name, FileState& state) {
  const int fd = open((dir_ + "/" + name).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > state.offset) {
    char buffer[64 * 1024];
    ssize_t n;
    while ((n = pread(fd, buffer, sizeof(buffer), state.offset)) > 0) {
      state.offset += n;
      for (ssize_t i = 0; i < n; ++i) {
        if (buffer[i] != '\n') {
          // A line longer than a log line is not relayed: it would be cut.
          if (!state.skipping) state.partial.push_back(buffer[i]);
          if (state.partial.size() > contract::kMaxLogLineBytes / 2) {
            state.partial.clear();
            state.skipping = true;
          }
          continue;
        }
        if (!state.skipping) {
          out_->WriteLine(Stream::kOut, contract::FormatTraceRelayLine(name, state.partial));
        }
        state.partial.clear();
        state.skipping = false;
      }
    }
  }
  close(fd);
}

}  // namespace dlp::launch
