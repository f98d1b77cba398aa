// The commit a job's working folder is at, read from the repository's files
// (HEAD, the loose ref it names, packed-refs; a worktree's gitdir/commondir)
// without running git: dlpd may be root, and running a tenant's repository's
// configuration (hooks, fsmonitor, core.* programs) is what it must not do.
// Only 40 or 64 hex digits are ever returned, so a HEAD planted as a link to
// another file reveals nothing of it.
//
// A tenant's workdir is the tenant's: its links (.git/refs -> dlpd's state
// folder) must be followed with the tenant's rights, never root's, so dlpd
// reads it through ReadGitCommitAs.
#pragma once

#include <sys/types.h>

#include <string>

namespace dlp::server {

// The commit of the repository holding `workdir` (looked for in it and its
// parents); "" when there is none or it cannot be read.
std::string ReadGitCommit(const std::string& workdir);

// ReadGitCommit as the user `uid` (group `gid`): in a child process that
// drops to that user and keeps no descriptor of dlpd's, when it is not this
// process's user. "" when that fails or takes more than two seconds.
std::string ReadGitCommitAs(const std::string& workdir, uid_t uid, gid_t gid);

}  // namespace dlp::server
