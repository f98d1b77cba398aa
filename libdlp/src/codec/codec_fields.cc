#include "absl/strings/str_cat.h"
#include "base/json/fields.h"
#include "codec/codec_internal.h"
#include "spec/suggest.h"
#include "spec/text.h"

namespace dlp {

std::string FormatApiTime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
}

namespace internal {

using base::FieldPath;
using base::FieldTypeError;
using base::Member;

absl::StatusOr<absl::Time> ParseApiTime(absl::string_view text) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, std::string(text), &time, &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not an RFC 3339 time (e.g. 2026-11-30T12:00:00.000Z)"));
  }
  return time;
}

absl::StatusOr<Json> ParseJson(std::string_view text, absl::string_view what) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON for ", what, ": ", e.what()));
  }
}

absl::Status RefuseNulEscapes(std::string_view std_text, absl::string_view what) {
  const absl::string_view text = base::ToAbsl(std_text);
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!in_string) {
      in_string = c == '"';
    } else if (c == '"') {
      in_string = false;
    } else if (c == '\\') {
      if (text.substr(i + 1, 5) == "u0000") {
        const TextPosition at = PositionOf(text, i);
        return absl::InvalidArgumentError(absl::StrCat(
            "invalid JSON for ", what, ": line ", at.line + 1, ", column ", at.column + 1,
            ": a NUL (\\u0000) in a string; text must be UTF-8 without NUL"));
      }
      ++i;  // the escaped character, which may be a quote or a backslash
    }
  }
  return absl::OkStatus();
}

std::string DumpJson(const OrderedJson& value, int indent) {
  // Replace invalid UTF-8 (a replica's odd output) rather than throw.
  return value.dump(indent < 0 ? -1 : indent, ' ', false, OrderedJson::error_handler_t::replace);
}

absl::Status ReadOptionalTime(const Json& object, absl::string_view path, const char* key,
                              std::optional<absl::Time>* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) {
    out->reset();
    return absl::OkStatus();
  }
  if (!m->is_string()) return FieldTypeError(path, key, "an RFC 3339 time or null", *m);
  absl::StatusOr<absl::Time> time = ParseApiTime(m->get<std::string>());
  if (!time.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldPath(path, key), ": ", time.status().message()));
  }
  *out = *time;
  return absl::OkStatus();
}

absl::Status ReadTime(const Json& object, absl::string_view path, const char* key,
                      absl::Time* out) {
  std::optional<absl::Time> time;
  absl::Status status = ReadOptionalTime(object, path, key, &time);
  if (status.ok() && time) *out = *time;
  return status;
}

absl::Status RefuseUnknownMembers(const Json& object, absl::string_view path,
                                  std::span<const absl::string_view> names) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (absl::string_view n : names) known = known || n == key;
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(path, path.empty() ? "" : ".", key, ": ",
                                                     UnknownKey("field", key, names)));
    }
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace dlp
