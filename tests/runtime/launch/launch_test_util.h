// Helpers for the dlp-run tests: the binary, status files, process liveness.
#pragma once

#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "nlohmann/json.hpp"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {

inline std::string DlpRun() { return BinPath("dlp-run"); }

// An ssh stand-in (for DLP_SSH): its last argument is the remote command line.
inline std::string FakeSsh(const TempDir& dir, const std::string& body) {
  std::string path = dir.WriteFile("fake-ssh", "#!/bin/sh\n" + body + "\n");
  chmod(path.c_str(), 0755);
  return path;
}

// Runs the remote command line in a session of its own, as sshd would on
// another host: signals to the local ssh's process group do not reach it.
inline constexpr char kRunLastArg[] = "for last; do :; done; exec setsid -w sh -c \"$last\"";

// The status file as JSON; null while absent or unparsable.
inline nlohmann::json ReadJson(const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(ReadFileOrEmpty(path), nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

// A process is gone when it does not exist or is a zombie waiting for init.
inline bool ProcessGone(int pid) {
  if (kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  size_t close = line.rfind(')');
  return close == std::string::npos || line.substr(close + 2, 1) == "Z";
}

inline int ReadPid(const std::string& path) {
  std::string text = ReadFileOrEmpty(path);
  try {
    return text.empty() ? 0 : std::stoi(text);
  } catch (...) {
    return 0;
  }
}

}  // namespace dlp::testing
