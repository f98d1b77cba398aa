#include "spec/spec_reader.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "spec/suggest.h"

namespace dlp::internal {

using Json = nlohmann::json;

const Origin* SpecReader::Find(absl::string_view path) const {
  if (origins_ == nullptr) return nullptr;
  auto it = origins_->find(std::string(path));
  return it == origins_->end() ? nullptr : &it->second;
}

std::string SpecReader::Shown(absl::string_view path, absl::string_view child) const {
  if (const Origin* o = Find(path)) return JoinPath(o->path, child);
  return JoinPath(JoinPath(prefix_, path), child);
}

void SpecReader::Report(absl::string_view path, absl::string_view message,
                        absl::string_view child) {
  const Origin* o = Find(path);
  diagnostics_.Add(o ? o->value : YAML::Mark::null_mark(), Shown(path, child), message);
}

int SpecReader::Line(absl::string_view path) const {
  const Origin* o = Find(path);
  return o ? o->value.line + 1 : 0;
}

void SpecReader::ReportKey(absl::string_view path, absl::string_view message) {
  const Origin* o = Find(path);
  diagnostics_.Add(o ? o->key : YAML::Mark::null_mark(), Shown(path), message);
}

bool SpecReader::Check(absl::string_view path, const Problem& problem,
                       absl::string_view child) {
  if (!problem) return true;
  Report(path, *problem, child);
  return false;
}

std::string SpecReader::Describe(const Json& value) const {
  if (!text_scalars()) return value.type_name();
  if (value.is_array()) return "a list";
  if (value.is_object()) return "a map";
  if (!value.is_string()) return "nothing";
  std::string text = value.get<std::string>();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return absl::StrCat("\"", absl::CHexEscape(text), "\"");
}

bool SpecReader::CheckObject(const Json& value, absl::string_view path, absl::string_view expected,
                             std::span<const absl::string_view> names, absl::string_view kind,
                             absl::string_view implied) {
  if (!value.is_object()) {
    Report(path, absl::StrCat("expected ", expected, ", got ", Describe(value)));
    return false;
  }
  if (!refuse_unknown_) return true;
  for (const auto& [key, member] : value.items()) {
    bool known = !implied.empty() && key == implied;
    for (absl::string_view n : names) known = known || n == key;
    if (!known) ReportKey(JoinPath(path, key), UnknownKey(kind, key, names));
  }
  return true;
}

void SpecReader::Required(const Json& object, absl::string_view path, const schema::Field& field,
                          std::span<const absl::string_view> names, absl::string_view message) {
  if (refuse_unknown_ && object.is_object()) {
    for (const auto& [key, member] : object.items()) {
      if (key == field.name) continue;
      bool known = false;
      for (absl::string_view n : names) known = known || n == key;
      if (!known && ClosestMatch(key, names) == std::string(field.name)) return;
    }
  }
  Report(path, message, field.name);
}

const Json* SpecReader::Child(const Json& object, const schema::Field& field) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(std::string(field.name));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::string> SpecReader::String(const Json& object, absl::string_view parent,
                                              schema::StringField field) {
  const Json* n = Child(object, field.field);
  if (n == nullptr) return std::nullopt;
  return String(*n, JoinPath(parent, field.field.name));
}

std::optional<int64_t> SpecReader::Int(const Json& object, absl::string_view parent,
                                       schema::IntField field) {
  const Json* n = Child(object, field.field);
  if (n == nullptr) return std::nullopt;
  return Int(*n, JoinPath(parent, field.field.name));
}

std::optional<bool> SpecReader::Bool(const Json& object, absl::string_view parent,
                                     schema::BoolField field) {
  const Json* n = Child(object, field.field);
  if (n == nullptr) return std::nullopt;
  return Bool(*n, JoinPath(parent, field.field.name));
}

std::optional<std::string> SpecReader::Enum(const Json& object, absl::string_view parent,
                                            schema::EnumField field, absl::string_view what) {
  const Json* n = Child(object, field.field);
  if (n == nullptr) return std::nullopt;
  std::optional<std::string> name = String(*n, JoinPath(parent, field.field.name));
  if (!name) return std::nullopt;
  for (absl::string_view valid : field.field.values) {
    if (valid == *name) return name;
  }
  Report(JoinPath(parent, field.field.name), UnknownName(what, *name, field.field.values));
  return std::nullopt;
}

std::optional<std::string> SpecReader::Quantity(const Json& object, absl::string_view parent,
                                                schema::QuantityField field) {
  const Json* n = Child(object, field.field);
  if (n == nullptr) return std::nullopt;
  return Quantity(*n, JoinPath(parent, field.field.name));
}

std::optional<std::vector<std::string>> SpecReader::StringList(const Json& object,
                                                               absl::string_view parent,
                                                               schema::StringListField field) {
  const Json* n = Child(object, field.field);
  if (n == nullptr) return std::nullopt;
  return StringList(*n, JoinPath(parent, field.field.name));
}

std::optional<std::map<std::string, std::string>> SpecReader::StringMap(
    const Json& object, absl::string_view parent, schema::StringMapField field,
    const std::function<Problem(absl::string_view)>& check_key,
    const std::function<Problem(absl::string_view)>& check_value) {
  const Json* n = Child(object, field.field);
  if (n == nullptr) return std::nullopt;
  return StringMap(*n, JoinPath(parent, field.field.name), check_key, check_value);
}

std::optional<std::string> SpecReader::String(const Json& value, absl::string_view path) {
  if (!value.is_string()) {
    Report(path, absl::StrCat("expected a string, got ", Describe(value)));
    return std::nullopt;
  }
  return value.get<std::string>();
}

std::optional<int64_t> SpecReader::Int(const Json& value, absl::string_view path) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() ? value.get<uint64_t>() <= INT32_MAX
                                   : value.get<int64_t>() >= INT32_MIN &&
                                         value.get<int64_t>() <= INT32_MAX) {
      return value.get<int64_t>();
    }
    Report(path, absl::StrCat(value.dump(), " is out of range"));
    return std::nullopt;
  }
  if (text_scalars() && value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    bool digits = !text.empty();
    for (size_t i = 0; i < text.size(); ++i) {
      const bool sign = i == 0 && text[i] == '-' && text.size() > 1;
      digits = digits && (sign || absl::ascii_isdigit(static_cast<unsigned char>(text[i])));
    }
    int64_t n = 0;
    if (digits && absl::SimpleAtoi(text, &n) && n >= INT32_MIN && n <= INT32_MAX) return n;
    if (digits) {
      Report(path, absl::StrCat("integer ", text, " is out of range"));
      return std::nullopt;
    }
  }
  Report(path, absl::StrCat("expected an integer, got ", Describe(value)));
  return std::nullopt;
}

std::optional<bool> SpecReader::Bool(const Json& value, absl::string_view path) {
  if (value.is_boolean()) return value.get<bool>();
  if (text_scalars() && (value == "true" || value == "false")) return value == "true";
  Report(path, absl::StrCat("expected true or false, got ", Describe(value)));
  return std::nullopt;
}

std::optional<std::string> SpecReader::Quantity(const Json& value, absl::string_view path) {
  if (value.is_number()) return value.dump();
  return String(value, path);
}

std::optional<std::vector<std::string>> SpecReader::StringList(const Json& value,
                                                               absl::string_view path) {
  if (!value.is_array()) {
    Report(path, absl::StrCat("expected a list of strings (e.g. [python3, train.py]), got ",
                              Describe(value)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string item_path = absl::StrCat(path, "[", i, "]");
    if (!value[i].is_string()) {
      Report(item_path, absl::StrCat("expected a string, got ", Describe(value[i])));
      ok = false;
      continue;
    }
    out.push_back(value[i].get<std::string>());
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::map<std::string, std::string>> SpecReader::StringMap(
    const Json& value, absl::string_view path,
    const std::function<Problem(absl::string_view)>& check_key,
    const std::function<Problem(absl::string_view)>& check_value) {
  if (!value.is_object()) {
    Report(path, absl::StrCat("expected a map of names to strings, got ", Describe(value)));
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  bool ok = true;
  for (const auto& [key, item] : value.items()) {
    const std::string entry_path = JoinPath(path, key);
    if (Problem p = check_key(key)) {
      ReportKey(entry_path, *p);
      ok = false;
    }
    std::string text;  // `KEY:` with no value is the empty string
    if (!item.is_null()) {
      if (!item.is_string()) {
        Report(entry_path, absl::StrCat("expected a string, got ", Describe(item)));
        ok = false;
        continue;
      }
      text = item.get<std::string>();
    }
    ok = Check(entry_path, check_value(text)) && ok;
    out[key] = text;
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace dlp::internal
