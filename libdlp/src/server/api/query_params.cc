#include "server/api/query_params.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace dlp::server {
namespace {

// httplib keeps the last of repeated parameters; a repeat is refused instead.
absl::StatusOr<std::string> Single(const httplib::Request& req, const char* name) {
  if (req.get_param_value_count(name) > 1) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": given more than once"));
  }
  return req.get_param_value(name);
}

}  // namespace

absl::StatusOr<double> SecondsParam(const httplib::Request& req, const char* name, double fallback,
                                    double max) {
  if (!req.has_param(name)) return fallback;
  absl::StatusOr<std::string> text = Single(req, name);
  if (!text.ok()) return text.status();
  double seconds = 0;
  // SimpleAtod takes "nan" and "inf"; only digits, a point and an exponent pass here.
  const bool plain =
      !text->empty() && text->find_first_not_of("0123456789.eE+-") == std::string::npos;
  if (!plain || !absl::SimpleAtod(*text, &seconds) || !std::isfinite(seconds) || seconds < 0 ||
      seconds > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": expected seconds from 0 to ", max, ", got \"", *text, "\""));
  }
  return seconds;
}

absl::StatusOr<int64_t> IntParam(const httplib::Request& req, const char* name, int64_t fallback,
                                 int64_t min, int64_t max) {
  if (!req.has_param(name)) return fallback;
  absl::StatusOr<std::string> text = Single(req, name);
  if (!text.ok()) return text.status();
  int64_t value = 0;
  if (!absl::SimpleAtoi(*text, &value) || value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": expected an integer from ", min, " to ",
                                                   max, ", got \"", *text, "\""));
  }
  return value;
}

absl::StatusOr<bool> BoolParam(const httplib::Request& req, const char* name, bool fallback) {
  if (!req.has_param(name)) return fallback;
  absl::StatusOr<std::string> text = Single(req, name);
  if (!text.ok()) return text.status();
  if (*text == "1" || *text == "true") return true;
  if (*text == "0" || *text == "false") return false;
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": expected 1, true, 0 or false, got \"", *text, "\""));
}

}  // namespace dlp::server
