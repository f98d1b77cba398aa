#include "server/http/query_params.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

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

std::string PercentDecode(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    int hi = 0, lo = 0;
    if (text[i] == '%' && i + 2 < text.size() &&
        absl::ascii_isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        absl::ascii_isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      hi = std::stoi(std::string(text.substr(i + 1, 1)), nullptr, 16);
      lo = std::stoi(std::string(text.substr(i + 2, 1)), nullptr, 16);
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(text[i] == '+' ? ' ' : text[i]);
    }
  }
  return out;
}

std::vector<std::string> RawParams(const httplib::Request& req, absl::string_view name) {
  std::vector<std::string> values;
  const size_t question = req.target.find('?');
  if (question == std::string::npos) return values;
  const std::string prefix = absl::StrCat(name, "=");
  for (absl::string_view param :
       absl::StrSplit(absl::string_view(req.target).substr(question + 1), '&')) {
    if (absl::ConsumePrefix(&param, prefix)) values.push_back(PercentDecode(param));
  }
  return values;
}

std::string FormField(absl::string_view body, absl::string_view name) {
  for (absl::string_view pair : absl::StrSplit(body, '&')) {
    const size_t eq = pair.find('=');
    if (eq != absl::string_view::npos && PercentDecode(pair.substr(0, eq)) == name) {
      return PercentDecode(pair.substr(eq + 1));
    }
  }
  return "";
}

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
