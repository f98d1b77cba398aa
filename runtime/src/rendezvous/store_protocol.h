// The wire format of the TCP store. A connection opens with the handshake of
// common/peer_proof.h (ProofPurpose::kStore); then every message is a frame: a 4-byte
// little-endian length, then the payload. Requests start with an Op byte;
// replies with a Reply byte. Strings are a 4-byte length and the bytes;
// integers are 8 bytes little-endian.
//
//   SET key value                 -> OK
//   GET timeout_ms key            -> OK value | TIMEOUT key
//   WAIT timeout_ms n key...      -> OK | TIMEOUT first-missing-key
//   ADD key delta                 -> OK new-value(int) | ERROR message
//
// A SET or ADD over the store's caps (StoreLimits) is answered FULL message;
// a frame too large for any cap is skipped unread and answered FULL as well.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dlp::runtime::store_wire {

enum Op : uint8_t { kSet = 1, kGet = 2, kWait = 3, kAdd = 4 };
enum Reply : uint8_t { kOk = 0, kTimeout = 1, kError = 2, kFull = 3 };

// The longest GET/WAIT timeout: a client's "forever" (about 35 years). The
// server holds any longer or negative one it is sent to [0, this].
inline constexpr int64_t kLongestWaitMs = int64_t{1} << 40;

// The largest reply a client accepts; the server bounds requests by its
// StoreLimits (RequestFrameCap).
inline constexpr uint32_t kMaxFrame = 64u << 20;

// The largest request frame worth reading for these caps: a SET of the
// largest key and value, or a WAIT of `max_keys` of the largest keys.
inline size_t RequestFrameCap(size_t max_key_bytes, size_t max_value_bytes) {
  constexpr size_t kWaitKeys = 1024;  // WAITs name a communicator's ranks
  return std::max(1 + 4 + max_key_bytes + 4 + max_value_bytes,
                  1 + 8 + 4 + kWaitKeys * (4 + max_key_bytes));
}

class Writer {
 public:
  Writer& U8(uint8_t v) {
    out_.push_back(static_cast<char>(v));
    return *this;
  }
  Writer& I64(int64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
    return *this;
  }
  Writer& U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }
  Writer& Str(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_.append(s);
    return *this;
  }
  // The payload with its length prefix.
  std::string Frame() const {
    Writer w;
    w.U32(static_cast<uint32_t>(out_.size()));
    return w.out_ + out_;
  }

 private:
  std::string out_;
};

// Reads fields from a payload; ok() turns false on a short or malformed payload.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  uint8_t U8() { return Need(1) ? static_cast<uint8_t>(in_[pos_++]) : 0; }
  uint32_t U32() {
    if (!Need(4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(in_[pos_++])) << (8 * i);
    return v;
  }
  int64_t I64() {
    if (!Need(8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_++])) << (8 * i);
    return static_cast<int64_t>(v);
  }
  std::string Str() {
    uint32_t n = U32();
    if (!Need(n)) return {};
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }

 private:
  bool Need(size_t n) {
    if (!ok_ || in_.size() - pos_ < n) ok_ = false;
    return ok_;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

inline uint32_t DecodeLength(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

}  // namespace dlp::runtime::store_wire
