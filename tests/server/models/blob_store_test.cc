// The content-addressed blob store: a blob is named by its SHA-256, the same
// content is kept once, and only digests open anything.
#include "server/models/blob_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "contract/sha256.h"
#include "gtest/gtest.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

absl::StatusOr<Blob> PutFile(BlobStore& store, const std::string& path) {
  contract::OwnedFd fd(open(path.c_str(), O_RDONLY));
  return store.Put(fd.get());
}

TEST(BlobStore, StoresByDigestAndDeduplicates) {
  testing::TempDir dir;
  BlobStore store(dir.Join("blobs"));
  const std::string a = dir.WriteFile("a", "weights");
  const std::string b = dir.WriteFile("b", "weights");
  const std::string c = dir.WriteFile("c", "other weights");

  auto first = PutFile(store, a);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->sha256, contract::Sha256Hex("weights"));
  EXPECT_EQ(first->size, 7);
  EXPECT_FALSE(first->existed);
  auto again = PutFile(store, b);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->sha256, first->sha256);
  EXPECT_TRUE(again->existed);
  ASSERT_TRUE(PutFile(store, c).ok());

  // Two blobs, no temporaries left.
  int blobs = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.Join("blobs/sha256"))) {
    if (e.is_regular_file()) ++blobs;
  }
  EXPECT_EQ(blobs, 2);
  EXPECT_TRUE(std::filesystem::is_empty(dir.Join("blobs/tmp")));
  EXPECT_EQ(testing::ReadFileOrEmpty(store.PathOf(first->sha256)), "weights");

  auto opened = store.Open(first->sha256);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->size, 7);
  EXPECT_TRUE(absl::IsNotFound(store.Open(contract::Sha256Hex("missing")).status()));
  EXPECT_TRUE(absl::IsNotFound(store.Open("../../etc/passwd").status()));
}

}  // namespace
}  // namespace dlp::server
