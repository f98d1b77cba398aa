// Shared pieces of the JSON/YAML codec (dlp/codec.h): the nlohmann values of
// the model, and strict typed reads that name the field path on a mismatch.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/json/fields.h"
#include "base/strings/string_view_compat.h"
#include "dlp/api_codec.h"
#include "dlp/job.h"
#include "nlohmann/json.hpp"
#include "schema/fields.h"
#include "spec/decoder.h"

namespace dlp::internal {

using OrderedJson = nlohmann::ordered_json;
using Json = nlohmann::json;

// The schema's fields (schema/fields.h) that a C++ value of type T is written
// to by Put; other types have none.
template <typename T>
struct WrittenAs;
template <>
struct WrittenAs<bool> : std::type_identity<schema::FieldFor<schema::kBoolean>> {};
template <>
struct WrittenAs<int> : std::type_identity<schema::FieldFor<schema::kInteger>> {};
template <>
struct WrittenAs<int64_t> : std::type_identity<schema::FieldFor<schema::kInteger>> {};
template <>
struct WrittenAs<std::string> : std::type_identity<schema::FieldFor<schema::kString>> {};
template <>
struct WrittenAs<std::string_view> : std::type_identity<schema::FieldFor<schema::kString>> {};
template <>
struct WrittenAs<std::vector<std::string>>
    : std::type_identity<schema::FieldFor<schema::kArray, schema::kString>> {};
template <>
struct WrittenAs<std::map<std::string, std::string>>
    : std::type_identity<schema::FieldFor<schema::kObject, schema::kString>> {};
template <>  // a value built by hand: an object, a list or a number
struct WrittenAs<OrderedJson>
    : std::type_identity<schema::FieldFor<schema::kObject | schema::kArray | schema::kNumber>> {};

// `object[field] = value`, the member named by the schema: a field the schema
// lacks, or of another type than `value`'s, does not compile.
template <typename T>
void Put(OrderedJson& object, typename WrittenAs<std::decay_t<T>>::type field, T&& value) {
  object[std::string(field.field.name)] = std::forward<T>(value);
}

// Times as RFC 3339 UTC with milliseconds (FormatApiTime in dlp/api_codec.h).
using dlp::FormatApiTime;
absl::StatusOr<absl::Time> ParseApiTime(absl::string_view text);

// A GPU count as people write it: whole GPUs an integer (2), a fraction a
// number (0.5), so that both forms read back the same.
OrderedJson GpuJson(int64_t millis);
OrderedJson SpecToJsonValue(const JobSpec& spec);
// spec.dependsOn: [{"job","condition"}].
OrderedJson DependsOnJson(const std::vector<JobDependency>& depends_on);
OrderedJson JobToJsonValue(const Job& job);
// A listing's summary of the job (GET /v1/jobs?fields=summary): the Job
// without its spec, with the spec's labels as a member "labels", last.
OrderedJson JobSummaryToJsonValue(const Job& job);
absl::StatusOr<Job> JobFromJsonValue(const Json& value, absl::string_view path);

// Parses `text`; errors name the byte offset and, for the documents it
// expects, what kind of document it wanted.
absl::StatusOr<Json> ParseJson(std::string_view text, absl::string_view what);
std::string DumpJson(const OrderedJson& value, int indent);
// `value` as a YAML document (block style; strings a reader would take for a
// number, a boolean or null are quoted).
std::string ToYaml(const OrderedJson& value);
// InvalidArgument naming the line and column of the first "\u0000" escape in
// a string of `text` (JSON that parsed): a NUL that execve would cut at.
absl::Status RefuseNulEscapes(std::string_view text, absl::string_view what);

// Typed reads from `object` (a JSON object): base/json/fields.h, and times.
using base::ReadArray;
using base::ReadBool;
using base::ReadInt;
using base::ReadObject;
using base::ReadOptionalInt;
using base::ReadString;
using base::ReadStringList;
using base::ReadStringMap;
using base::RequireObject;
// A listing {"KEY": [...]} parsed from `json` (`what` names it in errors),
// each element read by `one(element, "KEY[i]")`; a missing list is empty.
template <typename T, typename One>
absl::StatusOr<std::vector<T>> ReadListing(std::string_view json, const char* key,
                                           absl::string_view what, One one) {
  absl::StatusOr<Json> value = ParseJson(json, what);
  if (!value.ok()) return value.status();
  if (absl::Status s = RequireObject(*value, "", what); !s.ok()) return s;
  absl::StatusOr<const Json*> list = ReadArray(*value, "", key);
  if (!list.ok()) return list.status();
  std::vector<T> out;
  if (*list == nullptr) return out;
  out.reserve((*list)->size());
  for (size_t i = 0; i < (*list)->size(); ++i) {
    absl::StatusOr<T> item = one((**list)[i], absl::StrCat(key, "[", i, "]"));
    if (!item.ok()) return item.status();
    out.push_back(*std::move(item));
  }
  return out;
}

// An RFC 3339 time (ParseApiTime); missing or null resets `out`.
absl::Status ReadOptionalTime(const Json& object, absl::string_view path, const char* key,
                              std::optional<absl::Time>* out);
// The same, but a missing or null time leaves `out` as it is.
absl::Status ReadTime(const Json& object, absl::string_view path, const char* key,
                      absl::Time* out);
// InvalidArgument naming `path.member` for the first member of `object` not in
// `names`, worded as the YAML form words it (spec/suggest.h).
absl::Status RefuseUnknownMembers(const Json& object, absl::string_view path,
                                  std::span<const absl::string_view> names);

}  // namespace dlp::internal
