// Kubernetes-style quantities: CPU in millicores ("2", "0.5", "500m") and
// memory in bytes ("512Mi", "4Gi", "4G", "1.5Gi", "1e9", "1000").
//
// A quantity is a decimal number (digits, optional ".digits", optional exponent
// "e3"/"E3" for memory) followed by an optional suffix. The value is computed in
// 128-bit integers, so "1.5Gi" is exact; memory rounds up to whole bytes, as
// Kubernetes does.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/strings/string_view_compat.h"
#include "dlp/queue.h"
#include "dlp/spec.h"

namespace dlp {
namespace {

using int128 = __int128;
constexpr int128 kLimit = int128{1} << 62;  // far beyond any machine; keeps int64 safe

struct Number {
  int128 digits = 0;  // all digits, the fraction included
  int scale = 0;      // value = digits * 10^-scale
  absl::string_view rest;
};

// Reads "123", "1.5", ".5", "1." from the front of `text`; nullopt when there
// are no digits or too many of them.
std::optional<Number> ReadNumber(absl::string_view text) {
  Number n;
  size_t i = 0, seen = 0;
  bool dot = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) break;
    if (++seen > 30) return std::nullopt;
    n.digits = n.digits * 10 + (c - '0');
    if (dot) ++n.scale;
  }
  if (seen == 0) return std::nullopt;
  n.rest = text.substr(i);
  return n;
}

int128 Pow(int128 base, int exp) {
  int128 r = 1;
  while (exp-- > 0) r *= base;
  return r;
}

constexpr absl::string_view kCpuExpected = "expected e.g. 2, 0.5 or 500m";
constexpr absl::string_view kMemoryExpected = "expected e.g. 512Mi, 4Gi (binary) or 4G";

absl::Status CpuError(absl::string_view text, absl::string_view why = "") {
  return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not a CPU quantity",
                                                 why.empty() ? "" : " (", why,
                                                 why.empty() ? "" : ")", "; ", kCpuExpected));
}

absl::Status MemoryError(absl::string_view text, absl::string_view hint = "") {
  return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not a memory quantity; ",
                                                 kMemoryExpected, hint.empty() ? "" : "; ", hint));
}

struct Suffix {
  absl::string_view name;
  int128 base;
  int power;
};
constexpr Suffix kMemorySuffixes[] = {
    {"Ki", 1024, 1}, {"Mi", 1024, 2}, {"Gi", 1024, 3}, {"Ti", 1024, 4},
    {"Pi", 1024, 5}, {"Ei", 1024, 6}, {"k", 1000, 1},  {"M", 1000, 2},
    {"G", 1000, 3},  {"T", 1000, 4},  {"P", 1000, 5},  {"E", 1000, 6},
};

std::optional<Suffix> FindSuffix(absl::string_view s) {
  for (const Suffix& suffix : kMemorySuffixes) {
    if (suffix.name == s) return suffix;
  }
  return std::nullopt;
}

// A hint for the common mistakes: "4GB", "4gi", "512m", "1K".
std::string MemoryHint(absl::string_view number, absl::string_view suffix) {
  std::string s(suffix);
  if (s.size() >= 2 && (s.back() == 'B' || s.back() == 'b')) s.pop_back();
  if (s == "B" || s == "b") {
    return absl::StrCat("did you mean ", number, " (plain bytes)?");
  }
  if (s == "m") {
    return absl::StrCat("'m' means thousandths of a byte; did you mean ", number, "M or ", number,
                        "Mi?");
  }
  if (s.size() == 2 && (s[1] == 'i' || s[1] == 'I')) s[1] = 'i';
  if (!s.empty()) s[0] = absl::ascii_toupper(static_cast<unsigned char>(s[0]));
  if (s == "K") return absl::StrCat("did you mean ", number, "k or ", number, "Ki?");
  if (s == "Ki") return absl::StrCat("did you mean ", number, "Ki?");
  if (auto found = FindSuffix(s)) {
    if (s.size() == 2) return absl::StrCat("did you mean ", number, s, "?");
    return absl::StrCat("did you mean ", number, s, " (10^", 3 * found->power, " bytes) or ",
                        number, s, "i (2^", 10 * found->power, ")?");
  }
  return "";
}

}  // namespace

absl::StatusOr<int64_t> ParseCpuMillis(std::string_view std_text) {
  const absl::string_view text = base::ToAbsl(std_text);
  if (text.empty()) return CpuError(text, "empty");
  if (text[0] == '-') return CpuError(text, "negative");
  std::optional<Number> n = ReadNumber(text);
  if (!n) return CpuError(text);
  int128 millis;
  if (n->rest == "m") {
    if (n->scale > 0) return CpuError(text, "millicores are whole numbers");
    millis = n->digits;
  } else if (n->rest.empty()) {
    if (n->scale > 3) return CpuError(text, "finer than 1m, a thousandth of a CPU");
    millis = n->digits * Pow(10, 3 - n->scale);
  } else {
    return CpuError(text);
  }
  if (millis > kLimit) return CpuError(text, "too large");
  return static_cast<int64_t>(millis);
}

absl::StatusOr<int64_t> ParseMemoryBytes(std::string_view std_text) {
  const absl::string_view text = base::ToAbsl(std_text);
  if (text.empty()) return MemoryError(text);
  if (text[0] == '-') return MemoryError(text, "it must not be negative");
  std::optional<Number> n = ReadNumber(text);
  if (!n) return MemoryError(text);
  const absl::string_view number = text.substr(0, text.size() - n->rest.size());
  absl::string_view rest = n->rest;
  int exponent = 0;
  // "1e9" / "1E9" is an exponent; a bare "E" is the exa suffix.
  if (rest.size() >= 2 && (rest[0] == 'e' || rest[0] == 'E') &&
      (absl::ascii_isdigit(static_cast<unsigned char>(rest[1])) || rest[1] == '+' ||
       rest[1] == '-')) {
    absl::string_view digits = rest.substr(1);
    bool negative = digits[0] == '-';
    if (digits[0] == '+' || digits[0] == '-') digits.remove_prefix(1);
    if (digits.empty() || digits.size() > 2) return MemoryError(text);
    for (char c : digits) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return MemoryError(text);
      exponent = exponent * 10 + (c - '0');
    }
    if (negative) exponent = -exponent;
    rest = {};
  }
  int128 numerator = n->digits;
  int128 denominator = Pow(10, n->scale);
  if (!rest.empty()) {
    std::optional<Suffix> suffix = FindSuffix(rest);
    if (!suffix) return MemoryError(text, MemoryHint(number, rest));
    numerator *= Pow(suffix->base, suffix->power);
  }
  if (exponent > 18) return MemoryError(text, "it is too large");
  if (exponent >= 0) {
    numerator *= Pow(10, exponent);
  } else {
    denominator *= Pow(10, -exponent);
  }
  if (numerator / denominator > kLimit) return MemoryError(text, "it is too large");
  return static_cast<int64_t>((numerator + denominator - 1) / denominator);
}

absl::StatusOr<int64_t> ParseGpuMillis(std::string_view std_text) {
  const absl::string_view text = base::ToAbsl(std_text);
  auto error = [text](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not a GPU quantity", why.empty() ? "" : " (", why,
                     why.empty() ? "" : ")", "; expected e.g. 1, 2 or 0.5"));
  };
  if (text.empty()) return error("empty");
  // A negative number parses, so that the range check names the bounds.
  const bool negative = text[0] == '-';
  std::optional<Number> n = ReadNumber(text.substr(negative ? 1 : 0));
  if (!n || !n->rest.empty()) return error("");
  if (n->scale > 3) return error("finer than 0.001, a thousandth of a GPU");
  const int128 millis = n->digits * Pow(10, 3 - n->scale);
  if (millis > kLimit) return error("too large");
  return negative ? -static_cast<int64_t>(millis) : static_cast<int64_t>(millis);
}

std::string FormatGpuMillis(int64_t millis) {
  if (millis % 1000 == 0) return absl::StrCat(millis / 1000);
  std::string fraction = absl::StrFormat("%03d", std::abs(millis % 1000));
  while (fraction.back() == '0') fraction.pop_back();
  return absl::StrCat(millis < 0 ? "-" : "", std::abs(millis / 1000), ".", fraction);
}

std::string FormatCpuMillis(int64_t millis) {
  if (millis % 1000 == 0) return absl::StrCat(millis / 1000);
  return absl::StrCat(millis, "m");
}

std::string FormatMemoryBytes(int64_t bytes) {
  if (bytes == 0) return "0";
  static constexpr absl::string_view kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  static constexpr absl::string_view kDecimal[] = {"k", "M", "G", "T", "P", "E"};
  // The largest unit of each kind that divides exactly; the smaller number wins
  // (4Gi rather than 4294967296, 4G rather than 3906250Ki), binary on a tie.
  int64_t best = bytes;
  absl::string_view best_suffix;
  for (int kind = 0; kind < 2; ++kind) {
    for (int power = 6; power >= 1; --power) {
      const int128 unit = Pow(kind == 0 ? 1024 : 1000, power);
      if (bytes % unit != 0) continue;
      if (bytes / unit < best) {
        best = static_cast<int64_t>(bytes / unit);
        best_suffix = kind == 0 ? kBinary[power - 1] : kDecimal[power - 1];
      }
      break;
    }
  }
  return absl::StrCat(best, best_suffix);
}

}  // namespace dlp
