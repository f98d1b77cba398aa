// Typed, strict reads from a job spec's JSON value that report every problem
// to a Diagnostics. The value came from dlpd's JSON (paths are JSON's:
// "replicas[0].count") or from a YAML file (spec/yaml_json.h: every value
// keeps its file:line:col and YAML path, and scalars are text as written).
// A null member counts as absent, so the field takes its default. Members are
// named by the schema's field tables (schema/fields.h, generated from
// schema/api.schema.json): a member the schema lacks cannot be read, and one
// read as another type than the schema's does not compile.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "schema/fields.h"
#include "spec/diagnostics.h"
#include "spec/reader.h"
#include "spec/rules.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

// Where a value of a spec's JSON came from in a YAML file.
struct Origin {
  YAML::Mark key;    // its key in the map that holds it
  YAML::Mark value;  // the value itself
  std::string path;  // the YAML path: "spec.replicas.worker.count"
};
// By the value's path in the JSON ("replicas[0].count").
using Origins = std::map<std::string, Origin>;

class SpecReader {
 public:
  // `origins` null: the value is JSON as sent; paths are shown under `prefix`.
  SpecReader(const Origins* origins, std::string prefix, Diagnostics& diagnostics)
      : origins_(origins), prefix_(std::move(prefix)), diagnostics_(diagnostics) {}

  // Scalars are YAML's text as written ("2", "true"), read as the field's type.
  bool text_scalars() const { return origins_ != nullptr; }
  // The path to show for the value at `path`, and a child of it not present.
  std::string Shown(absl::string_view path, absl::string_view child = "") const;

  // At the value of `path`, naming its member `child` when given.
  void Report(absl::string_view path, absl::string_view message, absl::string_view child = "");
  // At the key of `path` in its map, as an unknown or duplicate key is.
  void ReportKey(absl::string_view path, absl::string_view message);
  // Reports `problem` (if any) at `path`; returns whether there was none.
  bool Check(absl::string_view path, const Problem& problem, absl::string_view child = "");
  // The line of the value at `path` in its file; 0 for JSON.
  int Line(absl::string_view path) const;

  // Whether `value` is an object; if not, reports "expected `expected`, got
  // ...". Reports members not in `names` (suggesting the closest; `kind` is
  // "field" or "role") unless `refuse_unknown` is off. `implied` is a member
  // known but not named (a document's replica role, which is its key).
  bool CheckObject(const nlohmann::json& value, absl::string_view path,
                   absl::string_view expected, std::span<const absl::string_view> names,
                   absl::string_view kind = "field", absl::string_view implied = "");
  // The same for an object of the schema, whose members are its fields.
  bool CheckObject(const nlohmann::json& value, absl::string_view path,
                   absl::string_view expected, const schema::Object& object) {
    return CheckObject(value, path, expected, object.names);
  }
  // Reports that `field` of the object at `path` is required, unless one of
  // its members is a misspelling of it: that was reported already, with the fix.
  void Required(const nlohmann::json& object, absl::string_view path, const schema::Field& field,
                std::span<const absl::string_view> names, absl::string_view message);

  // The member `field` of `object`, or nullptr when absent or null.
  static const nlohmann::json* Child(const nlohmann::json& object, const schema::Field& field);

  // The member `field` of `object` (the object at `parent`), read as the
  // schema's type; nothing when it is absent or null, or (reported) of
  // another type.
  std::optional<std::string> String(const nlohmann::json& object, absl::string_view parent,
                                    schema::StringField field);
  std::optional<int64_t> Int(const nlohmann::json& object, absl::string_view parent,
                             schema::IntField field);
  std::optional<bool> Bool(const nlohmann::json& object, absl::string_view parent,
                           schema::BoolField field);
  // One of the schema's names for the field (`what` names them in messages:
  // "framework", "restart policy").
  std::optional<std::string> Enum(const nlohmann::json& object, absl::string_view parent,
                                  schema::EnumField field, absl::string_view what);
  std::optional<std::string> Quantity(const nlohmann::json& object, absl::string_view parent,
                                      schema::QuantityField field);
  std::optional<std::vector<std::string>> StringList(const nlohmann::json& object,
                                                     absl::string_view parent,
                                                     schema::StringListField field);
  std::optional<std::map<std::string, std::string>> StringMap(
      const nlohmann::json& object, absl::string_view parent, schema::StringMapField field,
      const std::function<Problem(absl::string_view)>& check_key,
      const std::function<Problem(absl::string_view)>& check_value);

  // Reads of a value at `path` (an array's item, or a member found above).
  std::optional<std::string> String(const nlohmann::json& value, absl::string_view path);
  // An integer in int32's range.
  std::optional<int64_t> Int(const nlohmann::json& value, absl::string_view path);
  // true/false (YAML 1.2's spelling only: not yes/no/on/off).
  std::optional<bool> Bool(const nlohmann::json& value, absl::string_view path);
  // A quantity's text: a string, or a number as written ("0.5" for 0.5).
  std::optional<std::string> Quantity(const nlohmann::json& value, absl::string_view path);
  std::optional<std::vector<std::string>> StringList(const nlohmann::json& value,
                                                     absl::string_view path);
  // An object of strings (a null value is ""); `check_key`/`check_value`
  // report bad entries.
  std::optional<std::map<std::string, std::string>> StringMap(
      const nlohmann::json& value, absl::string_view path,
      const std::function<Problem(absl::string_view)>& check_key,
      const std::function<Problem(absl::string_view)>& check_value);

  // "a list", "a map", "\"text\"" (YAML) or JSON's type name, for messages.
  std::string Describe(const nlohmann::json& value) const;
  void set_refuse_unknown(bool refuse) { refuse_unknown_ = refuse; }

 private:
  const Origin* Find(absl::string_view path) const;

  const Origins* origins_;
  std::string prefix_;
  Diagnostics& diagnostics_;
  bool refuse_unknown_ = true;
};

}  // namespace dlp::internal
