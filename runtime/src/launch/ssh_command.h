// The ssh command line that starts a remote rank: OpenSSH in batch mode runs
// `<remote-path>/dlp-run --exec-rank` on the host, which sets the rank's
// environment and runs the command (see exec_rank.h). Every word is quoted
// for the remote shell. The job's secret never goes on a command line, which
// any user of either host can read: the remote dlp-run is told to read it as
// the first line of its stdin (kSecretOnStdinFlag), which the launcher writes.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dlp::launch {

struct SshOptions {
  std::string program = "ssh";       // DLP_SSH overrides (a wrapper, for instance)
  int port = 0;                      // 0: ssh's default
  std::string remote_path;           // folder holding dlp-run on the hosts; empty: this binary's
  std::vector<std::string> extra;    // raw ssh arguments: DLP_SSH_OPTS words, then -o per --ssh-opt
};

// The folder of the running dlp-run binary.
std::string SelfDirectory();

// The first line a remote rank writes on stdout once its command is about to
// start; the launcher consumes it as the readiness signal.
inline constexpr char kReadyMarker[] = "\x1b[dlp-run:ready]";

inline constexpr char kSecretOnStdinFlag[] = "--rdzv-secret-on-stdin";

// `host` follows "--", so ssh never takes it for an option. DLP_RDZV_SECRET
// in `env` is left out of the command line (see above).
std::vector<std::string> SshArgv(const SshOptions& options, const std::string& host,
                                 const std::map<std::string, std::string>& env,
                                 const std::string& workdir,
                                 const std::vector<std::string>& command);

}  // namespace dlp::launch
