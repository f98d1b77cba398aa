// HMAC-SHA256 (RFC 2104 over FIPS 180-4), for proving the job's secret on
// every rendezvous and collectives connection (peer_proof.h). The runtime's
// own code rather than OpenSSL's: trainers that embed the collectives often
// bring their own libcrypto, and the runtime links nothing of libdlp (whose
// SHA-256, libdlp/src/common/sha256.h, serves artifact checksums).
#pragma once

#include <string>
#include <string_view>

namespace dlp::runtime {

inline constexpr size_t kSha256Bytes = 32;

// The 32-byte digest of `data`.
std::string Sha256(std::string_view data);

// The 32-byte HMAC-SHA256 of `message` under `key`.
std::string HmacSha256(std::string_view key, std::string_view message);

// Compares in time that depends only on the lengths, so that a peer cannot
// learn how much of a proof was right.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace dlp::runtime
