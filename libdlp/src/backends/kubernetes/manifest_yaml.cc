#include "backends/kubernetes/manifest_yaml.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal::k8s {
namespace {

// A plain scalar that a YAML 1.1 or 1.2 reader would not take as a string.
bool Ambiguous(const std::string& text) {
  if (text.empty()) return true;
  static const char* const kWords[] = {"true", "false", "yes", "no",   "on",
                                       "off",  "y",     "n",   "null", "~"};
  const std::string lower = absl::AsciiStrToLower(text);
  for (const char* word : kWords) {
    if (lower == word) return true;
  }
  double number;
  return absl::SimpleAtod(text, &number) || lower.rfind("0x", 0) == 0 || lower.rfind("0o", 0) == 0;
}

void Emit(YAML::Emitter& out, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        Emit(out, item);
      }
      out << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      out << YAML::BeginSeq;
      for (const nlohmann::json& item : value) Emit(out, item);
      out << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      const std::string text = value.get<std::string>();
      if (text.find('\n') != std::string::npos) {
        out << YAML::Literal << text;
      } else if (Ambiguous(text)) {
        out << YAML::DoubleQuoted << text;
      } else {
        out << text;
      }
      break;
    }
    case nlohmann::json::value_t::boolean:
      out << value.get<bool>();
      break;
    case nlohmann::json::value_t::null:
      out << YAML::Null;
      break;
    case nlohmann::json::value_t::number_integer:
      out << value.get<int64_t>();
      break;
    case nlohmann::json::value_t::number_unsigned:
      out << value.get<uint64_t>();
      break;
    default:  // floating point, as JSON writes it
      out << value.get<double>();
  }
}

}  // namespace

std::string ManifestsToYaml(const std::vector<nlohmann::json>& manifests) {
  std::string yaml;
  for (const nlohmann::json& manifest : manifests) {
    YAML::Emitter out;
    Emit(out, manifest);
    if (!yaml.empty()) yaml += "---\n";
    yaml += out.c_str();
    yaml += "\n";
  }
  return yaml;
}

}  // namespace dlp::internal::k8s
