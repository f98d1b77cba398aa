// Inputs and float64 references for the collectives tests: every rank can
// compute every other rank's input (a hash of seed, rank and index), so each
// rank checks its own result against the reference without extra traffic.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "comm/core/dtype.h"

namespace dlp::runtime::testing {

// What the collectives are checked over.
inline constexpr dlp_dtype kAllDTypes[] = {DLP_FLOAT32,  DLP_FLOAT64, DLP_FLOAT16,
                                           DLP_BFLOAT16, DLP_INT32,   DLP_INT64};
inline constexpr dlp_op kAllOps[] = {DLP_SUM, DLP_AVG, DLP_MIN, DLP_MAX};

inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A value in [-4, 4] (integers in [-1000, 1000]) before conversion to the dtype.
inline double RawInput(uint64_t seed, int rank, size_t i, dlp_dtype t) {
  uint64_t h = Mix(seed * 1000003 + static_cast<uint64_t>(rank) * 0x100000001ULL + i);
  int64_t v = static_cast<int64_t>(h % 2001) - 1000;
  if (t == DLP_INT32 || t == DLP_INT64) return static_cast<double>(v);
  return static_cast<double>(v) / 250.0;
}

// Stores `v` as dtype `t` at element i of `buf`; returns the stored value as double.
inline double Store(void* buf, size_t i, dlp_dtype t, double v) {
  switch (t) {
    case DLP_FLOAT32: return static_cast<float*>(buf)[i] = static_cast<float>(v);
    case DLP_FLOAT64: return static_cast<double*>(buf)[i] = v;
    case DLP_INT32: return static_cast<int32_t*>(buf)[i] = static_cast<int32_t>(v);
    case DLP_INT64: return static_cast<double>(static_cast<int64_t*>(buf)[i] = static_cast<int64_t>(v));
    case DLP_FLOAT16: {
      uint16_t h = FloatToHalf(static_cast<float>(v));
      static_cast<uint16_t*>(buf)[i] = h;
      return HalfToFloat(h);
    }
    case DLP_BFLOAT16: {
      uint16_t b = FloatToBFloat16(static_cast<float>(v));
      static_cast<uint16_t*>(buf)[i] = b;
      return BFloat16ToFloat(b);
    }
  }
  return 0;
}

inline double Load(const void* buf, size_t i, dlp_dtype t) {
  switch (t) {
    case DLP_FLOAT32: return static_cast<const float*>(buf)[i];
    case DLP_FLOAT64: return static_cast<const double*>(buf)[i];
    case DLP_INT32: return static_cast<const int32_t*>(buf)[i];
    case DLP_INT64: return static_cast<double>(static_cast<const int64_t*>(buf)[i]);
    case DLP_FLOAT16: return HalfToFloat(static_cast<const uint16_t*>(buf)[i]);
    case DLP_BFLOAT16: return BFloat16ToFloat(static_cast<const uint16_t*>(buf)[i]);
  }
  return 0;
}

// Fills this rank's input.
inline void FillInput(void* buf, size_t count, uint64_t seed, int rank, dlp_dtype t) {
  for (size_t i = 0; i < count; ++i) Store(buf, i, t, RawInput(seed, rank, i, t));
}

// The exact result of reducing every rank's (dtype-rounded) input at i.
inline double Reference(uint64_t seed, int ranks, size_t i, dlp_dtype t, dlp_op op) {
  double acc = 0;
  char scratch[8];
  for (int r = 0; r < ranks; ++r) {
    double v = Store(scratch, 0, t, RawInput(seed, r, i, t));
    if (r == 0) {
      acc = v;
    } else if (op == DLP_MIN) {
      acc = std::min(acc, v);
    } else if (op == DLP_MAX) {
      acc = std::max(acc, v);
    } else {
      acc += v;
    }
  }
  if (op == DLP_AVG) {
    if (t == DLP_INT32 || t == DLP_INT64) return std::trunc(acc / ranks);
    return acc / ranks;
  }
  return acc;
}

// Rounding allowed for a sum of `ranks` values of magnitude ≤ 4, rounded once
// per addition.
inline double Tolerance(dlp_dtype t, int ranks) {
  double eps = 0;
  switch (t) {
    case DLP_FLOAT32: eps = 0x1p-23; break;
    case DLP_FLOAT64: eps = 0x1p-52; break;
    case DLP_FLOAT16: eps = 0x1p-10; break;
    case DLP_BFLOAT16: eps = 0x1p-7; break;
    default: return 0;
  }
  return eps * 4.0 * ranks * ranks;
}

// Checks `result` against the reference; the error names the index and rank.
inline absl::Status CheckResult(const void* result, size_t count, uint64_t seed, int rank,
                                int ranks, dlp_dtype t, dlp_op op) {
  double tol = Tolerance(t, ranks);
  for (size_t i = 0; i < count; ++i) {
    double want = Reference(seed, ranks, i, t, op);
    double got = Load(result, i, t);
    if (!(std::fabs(got - want) <= tol)) {
      return absl::InternalError(absl::StrFormat(
          "%s %s count %d: rank %d index %d: got %.9g, want %.9g (tolerance %g)", DTypeName(t),
          OpName(op), count, rank, i, got, want, tol));
    }
  }
  return absl::OkStatus();
}

inline void WriteFile(const std::string& path, const void* data, size_t n) {
  std::ofstream(path, std::ios::binary).write(static_cast<const char*>(data),
                                              static_cast<std::streamsize>(n));
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Compares every rank's result file with rank 0's; names the first differing
// element and rank.
inline std::string CompareAcrossRanks(const std::string& prefix, int ranks, size_t elem) {
  std::string first = ReadFile(prefix + "-0.bin");
  for (int r = 1; r < ranks; ++r) {
    std::string other = ReadFile(absl::StrFormat("%s-%d.bin", prefix, r));
    if (other.size() != first.size()) {
      return absl::StrFormat("%s: rank %d wrote %d bytes, rank 0 %d", prefix, r, other.size(),
                             first.size());
    }
    for (size_t b = 0; b < first.size(); ++b) {
      if (first[b] != other[b]) {
        return absl::StrFormat("%s: rank %d differs from rank 0 at index %d (not bit-identical)",
                               prefix, r, b / elem);
      }
    }
  }
  return "";
}

}  // namespace dlp::runtime::testing
