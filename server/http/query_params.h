// Strict readers of query parameters for every endpoint: a value that is not
// exactly what the parameter takes (NaN, inf, a negative number, trailing
// garbage, a number out of range) is InvalidArgument naming the parameter,
// answered with 400. An absent parameter gives the default.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dlp::server {

// A finite number of seconds in [0, max].
absl::StatusOr<double> SecondsParam(const httplib::Request& req, const char* name, double fallback,
                                    double max);
// An integer in [min, max].
absl::StatusOr<int64_t> IntParam(const httplib::Request& req, const char* name, int64_t fallback,
                                 int64_t min, int64_t max);
// Decodes %XX escapes and '+' (as a space) of a query or form value.
std::string PercentDecode(absl::string_view text);
// The first value of `name` in an application/x-www-form-urlencoded body, or "".
std::string FormField(absl::string_view body, absl::string_view name);

// Every value of the repeatable parameter `name`, decoded, read from the raw
// target: httplib splits a parameter at every '=', losing "K=V" or "x>=1"
// when the client did not encode the '='.
std::vector<std::string> RawParams(const httplib::Request& req, absl::string_view name);

// "1", "true", "0" or "false".
absl::StatusOr<bool> BoolParam(const httplib::Request& req, const char* name, bool fallback);

}  // namespace dlp::server
