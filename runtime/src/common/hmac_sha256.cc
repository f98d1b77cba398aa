#include "common/hmac_sha256.h"

#include "contract/sha256.h"

namespace dlp::runtime {
namespace {

constexpr size_t kBlock = 64;

}  // namespace

std::string Sha256(std::string_view data) { return contract::Sha256Of(data); }

std::string HmacSha256(std::string_view key, std::string_view message) {
  std::string block = key.size() > kBlock ? Sha256(key) : std::string(key);
  block.resize(kBlock, '\0');
  std::string inner(kBlock, '\0'), outer(kBlock, '\0');
  for (size_t i = 0; i < kBlock; ++i) {
    inner[i] = static_cast<char>(block[i] ^ 0x36);
    outer[i] = static_cast<char>(block[i] ^ 0x5c);
  }
  inner.append(message);
  outer.append(Sha256(inner));
  return Sha256(outer);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace dlp::runtime
