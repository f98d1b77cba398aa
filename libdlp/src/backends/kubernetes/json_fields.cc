#include "backends/kubernetes/json_fields.h"

#include "absl/strings/str_split.h"
#include "base/strings/string_view_compat.h"

namespace dlp::internal::k8s {
namespace {

const nlohmann::json& Null() {
  static const nlohmann::json* const kNull = new nlohmann::json();
  return *kNull;
}

}  // namespace

const nlohmann::json& At(const nlohmann::json& object, std::string_view path) {
  const nlohmann::json* at = &object;
  for (absl::string_view key : absl::StrSplit(base::ToAbsl(path), '/')) {
    if (!at->is_object()) return Null();
    auto it = at->find(std::string(key));
    if (it == at->end()) return Null();
    at = &*it;
  }
  return *at;
}

std::string Str(const nlohmann::json& object, std::string_view path) {
  const nlohmann::json& value = At(object, path);
  return value.is_string() ? value.get<std::string>() : "";
}

std::string Label(const nlohmann::json& object, const std::string& key) {
  const nlohmann::json& labels = At(object, "metadata/labels");
  return labels.is_object() && labels.contains(key) && labels[key].is_string()
             ? labels[key].get<std::string>()
             : "";
}

std::string Annotation(const nlohmann::json& object, const std::string& key) {
  const nlohmann::json& annotations = At(object, "metadata/annotations");
  return annotations.is_object() && annotations.contains(key) && annotations[key].is_string()
             ? annotations[key].get<std::string>()
             : "";
}

std::optional<absl::Time> TimeAt(const nlohmann::json& object, std::string_view path) {
  const std::string text = Str(object, path);
  absl::Time time;
  std::string error;
  if (text.empty() || !absl::ParseTime(absl::RFC3339_full, text, &time, &error)) {
    return std::nullopt;
  }
  return time;
}

const nlohmann::json& Condition(const nlohmann::json& object, std::string_view type) {
  const nlohmann::json& conditions = At(object, "status/conditions");
  if (!conditions.is_array()) return Null();
  for (const nlohmann::json& condition : conditions) {
    if (Str(condition, "type") == type) return condition;
  }
  return Null();
}

bool ConditionTrue(const nlohmann::json& object, std::string_view type) {
  return Str(Condition(object, type), "status") == "True";
}

}  // namespace dlp::internal::k8s
