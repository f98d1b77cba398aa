// The field names of a job spec's JSON form (schema/api.schema.json's
// JobSpec, which a test holds them to) and of the dlp-job(5) document around
// it. The decoder (spec/decoder.cc) refuses any other name with the field's
// path, so a misspelt field is an error, not a default.
#pragma once

#include <span>

#include "absl/strings/string_view.h"

namespace dlp::internal {

// JobSpec's members, as dlpd's JSON carries them.
inline constexpr absl::string_view kJsonSpecFields[] = {"name",
                                                        "labels",
                                                        "framework",
                                                        "queue",
                                                        "priority",
                                                        "replicas",
                                                        "workdir",
                                                        "image",
                                                        "restartPolicy",
                                                        "successPolicy",
                                                        "activeDeadlineSeconds",
                                                        "logs",
                                                        "preemptible",
                                                        "tracing",
                                                        "preemption",
                                                        "dependsOn"};
// A replica's; in the document the role is its key in spec.replicas, so the
// document's fields are these without the first.
inline constexpr absl::string_view kJsonReplicaFields[] = {"role",    "count", "minCount",
                                                           "command", "env",   "resources"};
inline constexpr std::span<const absl::string_view> kDocumentReplicaFields =
    std::span(kJsonReplicaFields).subspan(1);

// The document: apiVersion, kind, metadata (name, labels) and spec, which
// holds the JSON form's fields but name and labels, and spec.env, shared by
// every replica.
inline constexpr absl::string_view kTopFields[] = {"apiVersion", "kind", "metadata", "spec"};
inline constexpr absl::string_view kMetadataFields[] = {"name", "labels"};
inline constexpr absl::string_view kDocumentSpecFields[] = {"framework",
                                                            "queue",
                                                            "priority",
                                                            "replicas",
                                                            "workdir",
                                                            "restartPolicy",
                                                            "activeDeadlineSeconds",
                                                            "env",
                                                            "logs",
                                                            "preemptible",
                                                            "tracing",
                                                            "preemption",
                                                            "image",
                                                            "dependsOn",
                                                            "successPolicy"};

inline constexpr absl::string_view kResourceFields[] = {"cpu", "memory", "gpu", "gpuType"};
inline constexpr absl::string_view kRestartFields[] = {"policy", "maxRestarts", "backoffSeconds"};
inline constexpr absl::string_view kLogsFields[] = {"maxBytes"};
inline constexpr absl::string_view kTracingNames[] = {"sampled", "full", "off"};
inline constexpr absl::string_view kPreemptionFields[] = {"gracePeriodSeconds"};
inline constexpr absl::string_view kDependencyFields[] = {"job", "condition"};
inline constexpr absl::string_view kSuccessPolicyFields[] = {"roles"};

}  // namespace dlp::internal
