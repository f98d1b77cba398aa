#include "base/json/fields.h"

#include "absl/strings/str_cat.h"

namespace dlp::base {

using Json = nlohmann::json;

std::string FieldPath(absl::string_view path, const char* key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

absl::Status FieldTypeError(absl::string_view path, const char* key, absl::string_view expected,
                            const Json& got) {
  return absl::InvalidArgumentError(
      absl::StrCat(FieldPath(path, key), ": expected ", expected, ", got ", got.type_name()));
}

const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

absl::Status ReadString(const Json& object, absl::string_view path, const char* key,
                        std::string* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_string()) return FieldTypeError(path, key, "a string", *m);
  *out = m->get<std::string>();
  return absl::OkStatus();
}

absl::Status ReadInt(const Json& object, absl::string_view path, const char* key, int64_t* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_number_integer()) return FieldTypeError(path, key, "an integer", *m);
  if (m->is_number_unsigned() && m->get<uint64_t>() > INT64_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldPath(path, key), ": ", m->dump(), " is out of range"));
  }
  *out = m->get<int64_t>();
  return absl::OkStatus();
}

absl::Status ReadInt(const Json& object, absl::string_view path, const char* key, int* out) {
  int64_t value = *out;
  if (absl::Status s = ReadInt(object, path, key, &value); !s.ok()) return s;
  if (value < INT32_MIN || value > INT32_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldPath(path, key), ": ", value, " is out of range"));
  }
  *out = static_cast<int>(value);
  return absl::OkStatus();
}

absl::Status ReadBool(const Json& object, absl::string_view path, const char* key, bool* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_boolean()) return FieldTypeError(path, key, "true or false", *m);
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

absl::Status ReadStringMap(const Json& object, absl::string_view path, const char* key,
                           std::map<std::string, std::string>* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_object()) return FieldTypeError(path, key, "an object of strings", *m);
  out->clear();
  for (auto it = m->begin(); it != m->end(); ++it) {
    if (!it->is_string()) {
      return FieldTypeError(FieldPath(path, key), it.key().c_str(), "a string", *it);
    }
    (*out)[it.key()] = it->get<std::string>();
  }
  return absl::OkStatus();
}

absl::Status ReadStringList(const Json& object, absl::string_view path, const char* key,
                            std::vector<std::string>* out) {
  const Json* m = Member(object, key);
  if (m == nullptr) return absl::OkStatus();
  if (!m->is_array()) return FieldTypeError(path, key, "an array of strings", *m);
  out->clear();
  for (size_t i = 0; i < m->size(); ++i) {
    if (!(*m)[i].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(
          FieldPath(path, key), "[", i, "]: expected a string, got ", (*m)[i].type_name()));
    }
    out->push_back((*m)[i].get<std::string>());
  }
  return absl::OkStatus();
}

absl::StatusOr<const Json*> ReadObject(const Json& object, absl::string_view path,
                                       const char* key) {
  const Json* m = Member(object, key);
  if (m != nullptr && !m->is_object()) return FieldTypeError(path, key, "an object", *m);
  return m;
}

absl::StatusOr<const Json*> ReadArray(const Json& object, absl::string_view path, const char* key) {
  const Json* m = Member(object, key);
  if (m != nullptr && !m->is_array()) return FieldTypeError(path, key, "an array", *m);
  return m;
}


absl::Status RequireObject(const nlohmann::json& value, absl::string_view path,
                           absl::string_view what) {
  if (value.is_object()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(path.empty() ? what : path,
                                                 ": expected an object, got ", value.type_name()));
}

}  // namespace dlp::base
