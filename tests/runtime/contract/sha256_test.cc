// SHA-256 against the FIPS 180-4 examples and OpenSSL's `sha256sum` values,
// whole and split at every offset (the buffering across Update calls).
#include "contract/sha256.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"
#include "support/temp_dir.h"

namespace dlp::contract {
namespace {

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, SplitUpdatesGiveTheSameDigest) {
  std::string text;
  for (int i = 0; i < 300; ++i) text.push_back(static_cast<char>(i * 7));
  const std::string whole = Sha256Hex(text);
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    Sha256 sha;
    sha.Update(std::string_view(text).substr(0, cut));
    sha.Update(std::string_view(text).substr(cut));
    ASSERT_EQ(sha.HexDigest(), whole) << "split at " << cut;
  }
}

TEST(Sha256, OfAFileDescriptorAndHexCheck) {
  testing::TempDir dir;
  const std::string path = dir.WriteFile("f", "abc");
  const int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto digest = Sha256OfFd(fd);
  close(fd);
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(*digest, Sha256Hex("abc"));
  EXPECT_TRUE(IsSha256Hex(*digest));
  EXPECT_FALSE(IsSha256Hex("abc"));
  EXPECT_FALSE(IsSha256Hex(std::string(64, 'G')));
  EXPECT_FALSE(IsSha256Hex("../" + std::string(61, 'a')));
}

}  // namespace
}  // namespace dlp::contract
