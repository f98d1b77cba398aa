// The field names of the dlp-job(5) document around a job spec. The spec's own
// fields are the schema's (schema/api.schema.json's JobSpec, generated into
// schema/fields.h); the document reshapes them: name and labels move to
// metadata, spec.env is shared by every replica, and a replica's role is its
// key in spec.replicas. The decoders refuse any other name with the field's
// path, so a misspelt field is an error, not a default.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "absl/strings/string_view.h"
#include "schema/fields.h"

namespace dlp::internal {

inline constexpr absl::string_view kTopFields[] = {"apiVersion", "kind", "metadata", "spec"};
inline constexpr absl::string_view kMetadataFields[] = {"name", "labels"};

// `names` without `dropped` (each of them among `names`) and with `added` last:
// a compile-time error where the schema lacks a dropped name.
template <size_t kOut>
consteval std::array<absl::string_view, kOut> Reshaped(
    std::span<const absl::string_view> names, std::span<const absl::string_view> dropped,
    std::span<const absl::string_view> added = {}) {
  std::array<absl::string_view, kOut> out{};
  size_t n = 0;
  for (absl::string_view name : names) {
    bool drop = false;
    for (absl::string_view d : dropped) drop = drop || d == name;
    if (drop) continue;
    if (n == kOut) throw "a dropped name is not in the schema";
    out[n++] = name;
  }
  for (absl::string_view name : added) {
    if (n == kOut) throw "a dropped name is not in the schema";
    out[n++] = name;
  }
  if (n != kOut) throw "a dropped name is not in the schema";
  return out;
}

// The document's spec: JobSpec's fields but metadata's, and spec.env.
inline constexpr absl::string_view kSharedEnv[] = {"env"};
inline constexpr auto kDocumentSpecFields =
    Reshaped<std::size(schema::job_spec::kFieldNames) - std::size(kMetadataFields) + 1>(
        schema::job_spec::kFieldNames, kMetadataFields, kSharedEnv);
// A replica in the document: ReplicaSpec's fields but its role, the key.
inline constexpr absl::string_view kReplicaKey[] = {"role"};
inline constexpr auto kDocumentReplicaFields =
    Reshaped<std::size(schema::replica_spec::kFieldNames) - 1>(schema::replica_spec::kFieldNames,
                                                               kReplicaKey);

}  // namespace dlp::internal
