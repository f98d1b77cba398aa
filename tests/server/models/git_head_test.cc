// Reading a workdir's commit without running git: a detached HEAD, a branch
// (loose and packed), a worktree's .git file, a sub-folder of a repository,
// and a HEAD planted as a link to another file, which reveals nothing.
#include "server/models/git_head.h"

#include <unistd.h>

#include "gtest/gtest.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

const std::string kA(40, 'a'), kB(40, 'b'), kC(40, 'c');

TEST(GitHead, DetachedLooseAndPackedRefs) {
  testing::TempDir dir;
  dir.WriteFile("repo/.git/HEAD", kA + "\n");
  dir.WriteFile("repo/src/x", "");
  EXPECT_EQ(ReadGitCommit(dir.Join("repo")), kA);
  EXPECT_EQ(ReadGitCommit(dir.Join("repo/src")), kA);  // found in a parent

  dir.WriteFile("repo/.git/HEAD", "ref: refs/heads/main\n");
  dir.WriteFile("repo/.git/packed-refs", "# pack-refs\n" + kB + " refs/heads/main\n");
  EXPECT_EQ(ReadGitCommit(dir.Join("repo")), kB);
  dir.WriteFile("repo/.git/refs/heads/main", kC + "\n");
  EXPECT_EQ(ReadGitCommit(dir.Join("repo")), kC);  // loose wins over packed

  EXPECT_EQ(ReadGitCommit(dir.Join("nowhere")), "");
}

TEST(GitHead, WorktreeFile) {
  testing::TempDir dir;
  dir.WriteFile("main/.git/refs/heads/feature", kB + "\n");
  dir.WriteFile("main/.git/worktrees/wt/HEAD", "ref: refs/heads/feature\n");
  dir.WriteFile("main/.git/worktrees/wt/commondir", "../..\n");
  dir.WriteFile("wt/.git", "gitdir: " + dir.Join("main/.git/worktrees/wt") + "\n");
  EXPECT_EQ(ReadGitCommit(dir.Join("wt")), kB);
}

TEST(GitHead, RefusesLinksEscapesAndNonCommits) {
  testing::TempDir dir;
  dir.WriteFile("secret", kA + "\n");
  dir.WriteFile("repo/.git/refs/heads/x", "");
  ASSERT_EQ(symlink(dir.Join("secret").c_str(), dir.Join("repo/.git/HEAD").c_str()), 0);
  EXPECT_EQ(ReadGitCommit(dir.Join("repo")), "");
  unlink(dir.Join("repo/.git/HEAD").c_str());
  dir.WriteFile("repo/.git/HEAD", "ref: refs/../../secret\n");
  EXPECT_EQ(ReadGitCommit(dir.Join("repo")), "");
  dir.WriteFile("repo/.git/HEAD", "root:x:0:0:root:/root:/bin/bash\n");
  EXPECT_EQ(ReadGitCommit(dir.Join("repo")), "");
}

}  // namespace
}  // namespace dlp::server
