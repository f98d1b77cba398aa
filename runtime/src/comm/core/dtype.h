// Element types of the collectives: sizes, names, and the float16/bfloat16
// conversions through float that their reductions use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dlp/comm.h"

namespace dlp::runtime {

// Bytes per element; 0 for a value outside dlp_dtype.
size_t DTypeSize(dlp_dtype t);
const char* DTypeName(dlp_dtype t);
const char* OpName(dlp_op op);
bool IsValidDType(int t);
bool IsValidOp(int op);

inline float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);  // inf / NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: value = mant * 2^-24
    float f = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -f : f;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Round to nearest even, with overflow to infinity and subnormals.
inline uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) return static_cast<uint16_t>(sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0));
  if (abs >= 0x477ff000) return static_cast<uint16_t>(sign | 0x7c00);  // rounds past 65504
  if (abs < 0x38800000) {  // below the smallest normal half: 2^-14
    float a;
    std::memcpy(&a, &abs, 4);
    // a * 2^24 rounded to nearest even gives the subnormal mantissa.
    float scaled = a * 16777216.0f;
    uint32_t m = static_cast<uint32_t>(__builtin_nearbyintf(scaled));
    return static_cast<uint16_t>(sign | m);
  }
  uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);
  return static_cast<uint16_t>(sign | ((rounded - (112u << 23)) >> 13));
}

inline float BFloat16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t FloatToBFloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace dlp::runtime
