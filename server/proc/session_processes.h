// Which processes are a job's when it has no cgroup. dlpd starts dlp-run as
// the leader of a new session (setsid); a session is inherited at fork and
// can never be joined, only left, so membership is the kernel's word, never
// the job's (its status file names pids too, but the job writes that file).
// Thread-safe.
#pragma once

#include <sys/types.h>

#include <vector>

namespace dlp::server {

// The live processes of session `session` that run as `uid` (their real uid).
// None for a session id of 1 or less.
std::vector<pid_t> SessionProcesses(pid_t session, uid_t uid);

}  // namespace dlp::server
