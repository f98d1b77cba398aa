// Typed, strict reads from a yaml-cpp tree that report every problem to a
// Diagnostics with the node's position and field path. A null value (`key:` or
// `key: ~`) counts as absent, so the field takes its default.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "spec/diagnostics.h"
#include "spec/rules.h"
#include "spec/schema_field.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

// "a.b" + "c" -> "a.b.c"; "a" + "[0]" -> "a[0]".
std::string JoinPath(absl::string_view parent, absl::string_view child);

class YamlReader {
 public:
  explicit YamlReader(Diagnostics& diagnostics) : diagnostics_(diagnostics) {}

  void Report(const YAML::Node& node, absl::string_view path, absl::string_view message) {
    diagnostics_.Add(node.Mark(), path, message);
  }

  // Whether `node` is a map; if not, reports "expected `expected`, got ...".
  // For a map, reports keys that are not in `names` (suggesting the closest;
  // `kind` is "field" or "role") and keys given twice.
  bool CheckMap(const YAML::Node& node, absl::string_view path, absl::string_view expected,
                std::span<const absl::string_view> names, absl::string_view kind = "field");

  // Reports that `field` (in `map`, at `path`) is required, unless a key of
  // `map` is a misspelling of it: that was reported already, with the fix.
  void Required(const YAML::Node& map, absl::string_view path, absl::string_view field,
                std::span<const absl::string_view> names, absl::string_view message);

  // `field` of the document `root` (apiVersion, kind): required, exactly `want`.
  void Fixed(const YAML::Node& root, absl::string_view field, absl::string_view want,
             std::span<const absl::string_view> top_fields);

  // A spec document of `kind` ("Job", "Sweep"; `what` names it: "a sweep"):
  // whether `root` is a map of apiVersion, kind, metadata and spec, with
  // apiVersion and kind checked.
  bool Document(const YAML::Node& root, absl::string_view what, absl::string_view kind);
  // Its spec when that is a map of `fields`; else an undefined node, the
  // problem reported (`required` when there is none).
  YAML::Node DocumentSpec(const YAML::Node& root, absl::string_view required,
                          std::span<const absl::string_view> fields);

  // The value of `key` in `map`, or an undefined node when absent or null.
  static YAML::Node Child(const YAML::Node& map, absl::string_view key);
  static bool Present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }
  // The same for a member of a schema object (schema/fields.h): a member the
  // schema lacks does not compile.
  static YAML::Node Child(const YAML::Node& map, const schema::Field& field) {
    return Child(map, field.name);
  }

  // The member `field` of `map` (the map at `parent`), read as the schema's
  // type: a field the schema gives another type does not compile. Nothing
  // when it is absent or null, or (reported) of another type.
  std::optional<std::string> String(const YAML::Node& map, absl::string_view parent,
                                    schema::StringField field);
  std::optional<int64_t> Int(const YAML::Node& map, absl::string_view parent,
                             schema::IntField field);

  std::optional<std::string> String(const YAML::Node& node, absl::string_view path);
  std::optional<int64_t> Int(const YAML::Node& node, absl::string_view path);
  // A list of strings (numbers and booleans are taken as written).
  std::optional<std::vector<std::string>> StringList(const YAML::Node& node,
                                                     absl::string_view path);
  // A map of string to string; `check_key`/`check_value` report bad entries.
  std::optional<std::map<std::string, std::string>> StringMap(
      const YAML::Node& node, absl::string_view path,
      const std::function<Problem(absl::string_view)>& check_key,
      const std::function<Problem(absl::string_view)>& check_value);

  // Reports `problem` (if any) at `node`; returns whether there was none.
  bool Check(const YAML::Node& node, absl::string_view path, const Problem& problem);

 private:
  Diagnostics& diagnostics_;
};

// "a list", "a map", "\"text\"", "nothing": what a node holds, for messages.
std::string Describe(const YAML::Node& node);

}  // namespace dlp::internal
