// Null-safe reads of Kubernetes objects' fields (a missing field is "", 0 or
// absent, never an exception).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace dlp::internal::k8s {

// The value at a '/'-separated path ("status/phase"); null when absent.
const nlohmann::json& At(const nlohmann::json& object, std::string_view path);
std::string Str(const nlohmann::json& object, std::string_view path);
// metadata.labels[key] or metadata.annotations[key].
std::string Label(const nlohmann::json& object, const std::string& key);
std::string Annotation(const nlohmann::json& object, const std::string& key);
// An RFC 3339 time ("2026-12-01T16:00:00Z"); nullopt when absent or malformed.
std::optional<absl::Time> TimeAt(const nlohmann::json& object, std::string_view path);
// The condition of `type` in status.conditions; null when absent.
const nlohmann::json& Condition(const nlohmann::json& object, std::string_view type);
bool ConditionTrue(const nlohmann::json& object, std::string_view type);

}  // namespace dlp::internal::k8s
