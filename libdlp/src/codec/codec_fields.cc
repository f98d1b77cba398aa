#include "absl/strings/str_cat.h"
#include "codec/codec_internal.h"
#include "spec/suggest.h"
#include "spec/text.h"

namespace dlp::internal {
namespace {

std::string Field(absl::string_view path, const char* key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

absl::Status TypeError(absl::string_view path, const char* key, absl::string_view expected,
                       const Json& got) {
  return absl::InvalidArgumentError(
      absl::StrCat(Field(path, key), ": expected ", expected, ", got ", got.type_name()));
}

// The member, or nullptr when missing or null.
const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

}  // namespace

std::string FormatApiTime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
}

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
  const absl::string_view text = ToAbsl(std_text);
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

absl::Status ReadString(const Json& object, absl::string_view path, const char* key,
                        std::string* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_string()) return TypeError(path, key, "a string", *m);
  *out = m->get<std::string>();
  return absl::OkStatus();
}

absl::Status ReadInt(const Json& object, absl::string_view path, const char* key, int64_t* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_number_integer()) return TypeError(path, key, "an integer", *m);
  if (m->is_number_unsigned() && m->get<uint64_t>() > INT64_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(path, key), ": ", m->dump(), " is out of range"));
  }
  *out = m->get<int64_t>();
  return absl::OkStatus();
}

absl::Status ReadInt(const Json& object, absl::string_view path, const char* key, int* out) {
  int64_t value = *out;
  if (absl::Status s = ReadInt(object, path, key, &value); !s.ok()) return s;
  if (value < INT32_MIN || value > INT32_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(path, key), ": ", value, " is out of range"));
  }
  *out = static_cast<int>(value);
  return absl::OkStatus();
}

absl::Status ReadBool(const Json& object, absl::string_view path, const char* key, bool* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_boolean()) return TypeError(path, key, "true or false", *m);
  *out = m->get<bool>();
  return absl::OkStatus();
}

absl::Status ReadOptionalInt(const Json& object, absl::string_view path, const char* key,
                             std::optional<int>* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) {
    out->reset();
    return absl::OkStatus();
  }
  int value = 0;
  if (absl::Status s = ReadInt(object, path, key, &value); !s.ok()) return s;
  *out = value;
  return absl::OkStatus();
}

absl::Status ReadOptionalTime(const Json& object, absl::string_view path, const char* key,
                              std::optional<absl::Time>* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) {
    out->reset();
    return absl::OkStatus();
  }
  if (!m->is_string()) return TypeError(path, key, "an RFC 3339 time or null", *m);
  absl::StatusOr<absl::Time> time = ParseApiTime(m->get<std::string>());
  if (!time.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(path, key), ": ", time.status().message()));
  }
  *out = *time;
  return absl::OkStatus();
}

absl::Status ReadStringMap(const Json& object, absl::string_view path, const char* key,
                           std::map<std::string, std::string>* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_object()) return TypeError(path, key, "an object of strings", *m);
  out->clear();
  for (auto it = m->begin(); it != m->end(); ++it) {
    if (!it->is_string()) {
      return TypeError(Field(path, key), it.key().c_str(), "a string", *it);
    }
    (*out)[it.key()] = it->get<std::string>();
  }
  return absl::OkStatus();
}

absl::Status ReadStringList(const Json& object, absl::string_view path, const char* key,
                            std::vector<std::string>* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_array()) return TypeError(path, key, "an array of strings", *m);
  out->clear();
  for (size_t i = 0; i < m->size(); ++i) {
    if (!(*m)[i].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Field(path, key), "[", i, "]: expected a string, got ", (*m)[i].type_name()));
    }
    out->push_back((*m)[i].get<std::string>());
  }
  return absl::OkStatus();
}

absl::StatusOr<const Json*> ReadObject(const Json& object, absl::string_view path,
                                       const char* key) {
  const Json* m = Member(object, key);
  if (m != nullptr && !m->is_object()) return TypeError(path, key, "an object", *m);
  return m;
}

absl::StatusOr<const Json*> ReadArray(const Json& object, absl::string_view path, const char* key) {
  const Json* m = Member(object, key);
  if (m != nullptr && !m->is_array()) return TypeError(path, key, "an array", *m);
  return m;
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

}  // namespace dlp::internal
