// What the build knows of schema/api.schema.json's objects: one `Field` per
// member, generated into "schema/fields.h" (schema/cpp_fields.py) for the job
// spec, the sweep spec and everything under them. The decoders find members,
// refuse unknown ones, suggest names and check types and enum values by these
// tables, so a name, type or enum value is written once, in the schema.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "absl/strings/string_view.h"

namespace dlp::schema {

// A value's JSON types, as a bit set (anyOf gives several).
enum JsonType : unsigned {
  kString = 1,
  kInteger = 2,
  kNumber = 4,
  kBoolean = 8,
  kArray = 16,
  kObject = 32,
  kNull = 64,
};

struct Object;

struct Field {
  absl::string_view name;
  unsigned types = 0;  // JsonType bits; 0 for any value
  bool required = false;  // dlpd always writes it (a reader may still take it as optional)
  std::span<const absl::string_view> values;  // an enum's names, in the schema's order
  std::optional<int64_t> minimum;
  std::optional<int64_t> maximum;
  unsigned item_types = 0;  // an array's items or a map's values
  const Object* object = nullptr;  // the members of an object, or of an array's items
  absl::string_view description;
};

struct Object {
  absl::string_view name;  // "JobSpec", "JobSpec.restartPolicy"
  std::span<const Field> fields;
  std::span<const absl::string_view> names;  // the fields' names, for suggestions
  absl::string_view description;

  constexpr const Field* Find(absl::string_view member) const {
    for (const Field& f : fields) {
      if (f.name == member) return &f;
    }
    return nullptr;
  }
};

// A field whose schema type is one of `kTypes` (and, with `kItems`, whose
// items or values are): a compile-time error where the schema gives it
// another, so that the code reading a field and the schema cannot disagree.
template <unsigned kTypes, unsigned kItems = 0>
struct FieldOf {
  consteval FieldOf(const Field& f) : field(f) {  // NOLINT: implicit by design
    if (f.types == 0 || (f.types & ~kTypes) != 0) throw "the schema gives this field another type";
    if (kItems != 0 && (f.item_types == 0 || (f.item_types & ~kItems) != 0)) {
      throw "the schema gives this field's items another type";
    }
  }
  const Field& field;
};
// A field that a value of `kType` may be written to (one of the schema's
// types; an integer is a number too): a compile-time error otherwise.
template <unsigned kType, unsigned kItems = 0>
struct FieldFor {
  consteval FieldFor(const Field& f) : field(f) {  // NOLINT: implicit by design
    const unsigned types = f.types & kNumber ? f.types | kInteger : f.types;
    if (f.types != 0 && (types & kType) == 0) throw "the schema gives this field another type";
    const unsigned items = f.item_types & kNumber ? f.item_types | kInteger : f.item_types;
    if (kItems != 0 && f.item_types != 0 && (items & kItems) == 0) {
      throw "the schema gives this field's items another type";
    }
  }
  const Field& field;
};

using StringField = FieldOf<kString>;
using IntField = FieldOf<kInteger>;
using BoolField = FieldOf<kBoolean>;
using ObjectField = FieldOf<kObject>;
using ArrayField = FieldOf<kArray>;
using StringListField = FieldOf<kArray, kString>;
using StringMapField = FieldOf<kObject, kString>;
// A string of an enum's names.
struct EnumField {
  consteval EnumField(const Field& f) : field(f) {  // NOLINT: implicit by design
    if (f.types != kString || f.values.empty()) throw "the schema gives this field no names";
  }
  const Field& field;
};
// A quantity ("500m", "2Gi", 0.5): text or a number as written.
using QuantityField = FieldOf<kString | kInteger | kNumber>;

}  // namespace dlp::schema
