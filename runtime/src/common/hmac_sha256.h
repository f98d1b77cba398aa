// HMAC-SHA256 (RFC 2104 over contract/sha256.h), for proving the job's secret
// on every rendezvous and collectives connection (peer_proof.h); not
// OpenSSL's: trainers that embed the collectives often bring their own
// libcrypto.
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
