// Overflow-checked arithmetic on quantities (CPUs, bytes, GPUs, replica
// counts). Inputs are bounded where they are read, yet sums and products of
// them go through here so that no input can wrap a total around.
#pragma once

#include <concepts>
#include <limits>
#include <optional>

namespace dlp::base {

// a + b, a - b, a * b; nullopt when the result does not fit in T.
template <std::integral T>
std::optional<T> CheckedAdd(T a, T b) {
  T out;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

template <std::integral T>
std::optional<T> CheckedSub(T a, T b) {
  T out;
  if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
  return out;
}

template <std::integral T>
std::optional<T> CheckedMul(T a, T b) {
  T out;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// The same, clamped to T's range: for totals that only need to compare as
// "more than there is" (a demand that saturates never fits).
template <std::integral T>
T SaturatingAdd(T a, T b) {
  if (std::optional<T> r = CheckedAdd(a, b)) return *r;
  return b > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
}

template <std::integral T>
T SaturatingSub(T a, T b) {
  if (std::optional<T> r = CheckedSub(a, b)) return *r;
  return b < 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
}

template <std::integral T>
T SaturatingMul(T a, T b) {
  if (std::optional<T> r = CheckedMul(a, b)) return *r;
  return (a < 0) == (b < 0) ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
}

}  // namespace dlp::base
