// Unix accounts for the tests of tenant isolation: CI runs as root and may add
// accounts; elsewhere these tests skip.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace dlp::testing {

struct TestUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Makes sure the account `name` exists (useradd, no home folder), in the
// supplementary groups `groups` (groupadd). Returns why not when it cannot,
// e.g. when the test does not run as root: the caller skips.
std::string EnsureTestUser(const std::string& name, const std::vector<std::string>& groups,
                           TestUser* user);

// The gid of group `name`, or -1.
long GroupId(const std::string& name);

// Lets other users search every folder from `path` up to / (a TempDir is
// 0700), so that a job running as a test account reaches a state folder below.
void MakeSearchableUpwards(const std::string& path);

// argv run as `user` with no capabilities left (setpriv).
std::vector<std::string> AsUser(const TestUser& user, std::vector<std::string> argv);

}  // namespace dlp::testing
