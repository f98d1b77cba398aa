#include "spec/reader.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "spec/field_names.h"
#include "spec/suggest.h"

namespace dlp::internal {

std::string JoinPath(absl::string_view parent, absl::string_view child) {
  if (parent.empty() || child.empty() || child[0] == '[') return absl::StrCat(parent, child);
  return absl::StrCat(parent, ".", child);
}

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Scalar: {
      std::string text = node.Scalar();
      if (text.size() > 40) text = text.substr(0, 37) + "...";
      return absl::StrCat("\"", absl::CHexEscape(text), "\"");
    }
    default:
      return "nothing";
  }
}

bool YamlReader::CheckMap(const YAML::Node& node, absl::string_view path,
                          absl::string_view expected, std::span<const absl::string_view> names,
                          absl::string_view kind) {
  if (!node.IsMap()) {
    Report(node, path, absl::StrCat("expected ", expected, ", got ", Describe(node)));
    return false;
  }
  std::map<std::string, int> first_line;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;  // a copy: `it->` returns a temporary proxy
    if (!key.IsScalar()) {
      Report(key, path, absl::StrCat("expected a ", kind, " name as key, got ", Describe(key)));
      continue;
    }
    const std::string& name = key.Scalar();
    const std::string key_path = JoinPath(path, name);
    auto [seen, inserted] = first_line.emplace(name, key.Mark().line + 1);
    if (!inserted) {
      Report(key, key_path, absl::StrCat("duplicate key; first given on line ", seen->second));
      continue;
    }
    bool known = false;
    for (absl::string_view n : names) known = known || n == name;
    if (known) continue;
    Report(key, key_path, UnknownKey(kind, name, names));
  }
  return true;
}

void YamlReader::Required(const YAML::Node& map, absl::string_view path, absl::string_view field,
                          std::span<const absl::string_view> names, absl::string_view message) {
  if (map.IsMap()) {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;
      if (!key.IsScalar() || key.Scalar() == field) continue;
      bool known = false;
      for (absl::string_view n : names) known = known || n == key.Scalar();
      if (!known && ClosestMatch(key.Scalar(), names) == std::string(field)) return;
    }
  }
  Report(map, JoinPath(path, field), message);
}

YAML::Node YamlReader::Child(const YAML::Node& map, absl::string_view key) {
  if (!map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      if (it->second.IsNull()) break;
      return it->second;
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::optional<std::string> YamlReader::String(const YAML::Node& node, absl::string_view path) {
  if (!node.IsScalar()) {
    Report(node, path, absl::StrCat("expected a string, got ", Describe(node)));
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<int64_t> YamlReader::Int(const YAML::Node& node, absl::string_view path) {
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    bool digits = !text.empty();
    for (size_t i = 0; i < text.size(); ++i) {
      const bool sign = i == 0 && text[i] == '-' && text.size() > 1;
      digits = digits && (sign || absl::ascii_isdigit(static_cast<unsigned char>(text[i])));
    }
    int64_t value = 0;
    if (digits && absl::SimpleAtoi(text, &value) && value >= INT32_MIN && value <= INT32_MAX) {
      return value;
    }
    if (digits) {
      Report(node, path, absl::StrCat("integer ", text, " is out of range"));
      return std::nullopt;
    }
  }
  Report(node, path, absl::StrCat("expected an integer, got ", Describe(node)));
  return std::nullopt;
}

std::optional<std::string> YamlReader::String(const YAML::Node& map, absl::string_view parent,
                                              schema::StringField field) {
  const YAML::Node node = Child(map, field.field);
  if (!Present(node)) return std::nullopt;
  return String(node, JoinPath(parent, field.field.name));
}

std::optional<int64_t> YamlReader::Int(const YAML::Node& map, absl::string_view parent,
                                       schema::IntField field) {
  const YAML::Node node = Child(map, field.field);
  if (!Present(node)) return std::nullopt;
  return Int(node, JoinPath(parent, field.field.name));
}

std::optional<std::vector<std::string>> YamlReader::StringList(const YAML::Node& node,
                                                               absl::string_view path) {
  if (!node.IsSequence()) {
    Report(node, path,
           absl::StrCat("expected a list of strings (e.g. [python3, train.py]), got ",
                        Describe(node)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    if (!item.IsScalar()) {
      Report(item, absl::StrCat(path, "[", i, "]"),
             absl::StrCat("expected a string, got ", Describe(item)));
      ok = false;
      continue;
    }
    out.push_back(item.Scalar());
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::map<std::string, std::string>> YamlReader::StringMap(
    const YAML::Node& node, absl::string_view path,
    const std::function<Problem(absl::string_view)>& check_key,
    const std::function<Problem(absl::string_view)>& check_value) {
  if (!node.IsMap()) {
    Report(node, path, absl::StrCat("expected a map of names to strings, got ", Describe(node)));
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  std::map<std::string, int> first_line;
  bool ok = true;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;  // a copy: `it->` returns a temporary proxy
    const YAML::Node value = it->second;
    if (!key.IsScalar()) {
      Report(key, path, absl::StrCat("expected a name as key, got ", Describe(key)));
      ok = false;
      continue;
    }
    const std::string entry_path = JoinPath(path, key.Scalar());
    auto [seen, inserted] = first_line.emplace(key.Scalar(), key.Mark().line + 1);
    if (!inserted) {
      Report(key, entry_path, absl::StrCat("duplicate key; first given on line ", seen->second));
      ok = false;
      continue;
    }
    ok = Check(key, entry_path, check_key(key.Scalar())) && ok;
    std::string text;  // `KEY:` with no value is the empty string
    if (value.IsDefined() && !value.IsNull()) {
      if (!value.IsScalar()) {
        Report(value, entry_path, absl::StrCat("expected a string, got ", Describe(value)));
        ok = false;
        continue;
      }
      text = value.Scalar();
    }
    ok = Check(value.IsNull() ? key : value, entry_path, check_value(text)) && ok;
    out[key.Scalar()] = text;
  }
  if (!ok) return std::nullopt;
  return out;
}

void YamlReader::Fixed(const YAML::Node& root, absl::string_view field, absl::string_view want,
                       std::span<const absl::string_view> top_fields) {
  const YAML::Node node = Child(root, field);
  if (!Present(node)) {
    Required(root, "", field, top_fields, absl::StrCat("required; expected ", field, ": ", want));
    return;
  }
  std::optional<std::string> value = String(node, field);
  if (value && *value != want) {
    Report(node, field, absl::StrCat(Describe(node), " is not supported; expected ", want));
  }
}

bool YamlReader::Document(const YAML::Node& root, absl::string_view what,
                          absl::string_view kind) {
  if (!CheckMap(root, "", absl::StrCat(what, " (a map with apiVersion, kind, metadata and spec)"),
                kTopFields)) {
    return false;
  }
  Fixed(root, "apiVersion", kApiVersion, kTopFields);
  Fixed(root, "kind", kind, kTopFields);
  return true;
}

YAML::Node YamlReader::DocumentSpec(const YAML::Node& root, absl::string_view required,
                                    std::span<const absl::string_view> fields) {
  const YAML::Node body = Child(root, "spec");
  if (!Present(body)) {
    Required(root, "", "spec", kTopFields, required);
  } else if (CheckMap(body, "spec", "a map", fields)) {
    return body;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

bool YamlReader::Check(const YAML::Node& node, absl::string_view path, const Problem& problem) {
  if (!problem) return true;
  Report(node, path, *problem);
  return false;
}

}  // namespace dlp::internal
