// The commit a job's working folder is at, read from the repository's files
// (HEAD, the loose ref it names, packed-refs; a worktree's gitdir/commondir)
// without running git: dlpd may be root, and running a tenant's repository's
// configuration (hooks, fsmonitor, core.* programs) is what it must not do.
// Only 40 or 64 hex digits are ever returned, so a HEAD planted as a link to
// another file reveals nothing of it.
#pragma once

#include <string>

namespace dlp::server {

// The commit of the repository holding `workdir` (looked for in it and its
// parents); "" when there is none or it cannot be read.
std::string ReadGitCommit(const std::string& workdir);

}  // namespace dlp::server
