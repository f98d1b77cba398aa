// Strict, typed reads of a JSON object's members that name the field path on
// a mismatch ("spec.replicas[0].count: expected an integer, got string"):
// what dlp reads from another process (the API's JSON, a runner's status
// file) is read through these, never with nlohmann's throwing get<T>().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace dlp::base {

// "path.key", or "key" at the top.
std::string FieldPath(absl::string_view path, const char* key);

// A missing or null member leaves `out` unchanged (ReadOptional* reset it); a
// member of the wrong type, or an integer out of the range of `out`, is an
// InvalidArgumentError naming `path.key` and what was expected.
absl::Status ReadString(const nlohmann::json& object, absl::string_view path, const char* key,
                        std::string* out);
absl::Status ReadInt(const nlohmann::json& object, absl::string_view path, const char* key,
                     int64_t* out);
absl::Status ReadInt(const nlohmann::json& object, absl::string_view path, const char* key,
                     int* out);
absl::Status ReadBool(const nlohmann::json& object, absl::string_view path, const char* key,
                      bool* out);
absl::Status ReadOptionalInt(const nlohmann::json& object, absl::string_view path,
                             const char* key, std::optional<int>* out);
absl::Status ReadStringMap(const nlohmann::json& object, absl::string_view path, const char* key,
                           std::map<std::string, std::string>* out);
absl::Status ReadStringList(const nlohmann::json& object, absl::string_view path, const char* key,
                            std::vector<std::string>* out);
// Members that are objects or arrays: the member, or nullptr when missing or null.
absl::StatusOr<const nlohmann::json*> ReadObject(const nlohmann::json& object,
                                                 absl::string_view path, const char* key);
absl::StatusOr<const nlohmann::json*> ReadArray(const nlohmann::json& object,
                                                absl::string_view path, const char* key);

// The member `key` of `object`, or nullptr when it is missing or null (or
// `object` is not an object).
const nlohmann::json* Member(const nlohmann::json& object, const char* key);

// InvalidArgument "PATH: expected an object, got TYPE" unless `value` is an
// object; `what` stands for the path at the top ("job", "a tenant list").
absl::Status RequireObject(const nlohmann::json& value, absl::string_view path,
                           absl::string_view what);

// InvalidArgument "path.key: expected EXPECTED, got TYPE".
absl::Status FieldTypeError(absl::string_view path, const char* key, absl::string_view expected,
                            const nlohmann::json& got);

}  // namespace dlp::base
