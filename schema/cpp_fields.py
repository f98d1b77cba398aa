#!/usr/bin/env python3
"""The C++ field tables of api.schema.json's objects, for libdlp's decoder and
encoder (libdlp/src/spec/schema_field.h says what a table holds):

    cpp_fields.py SCHEMA OUT.h ROOT...

Every object reachable from the ROOT definitions gets a namespace with one
`Field` per member (kName, kGpuType, ...) and an `Object` (kJobSpec,
kJobSpecRestartPolicy, ...). A schema keyword the tables cannot express fails
here, so that nothing in the schema is silently left out of C++. Run by the
build (cmake: libdlp/CMakeLists.txt); stdlib only. The output is written only
when it changes, so that the build does not see a new header each time.
"""
import json
import os
import re
import sys

KNOWN_KEYWORDS = {
    "type", "properties", "additionalProperties", "required", "items", "enum", "anyOf",
    "$ref", "description", "minimum", "maximum", "title",
}
JSON_TYPES = {
    "string": "kString", "integer": "kInteger", "number": "kNumber",
    "boolean": "kBoolean", "array": "kArray", "object": "kObject", "null": "kNull",
}


class SchemaError(Exception):
    pass


def snake(name):
    """JobSpec.restartPolicy -> job_spec_restart_policy."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name.replace(".", "_"))
    return words.lower()


def camel(name):
    """gpuType -> GpuType; JobSpec.restartPolicy -> JobSpecRestartPolicy."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[._]", name) if part)


def cpp_string(text):
    return json.dumps(text, ensure_ascii=False)


class Generator:
    def __init__(self, schema):
        self.defs = schema["$defs"]
        self.objects = []  # (name, schema), children before the objects that use them
        self.seen = {}     # name -> schema
        self.visiting = set()

    def resolve(self, node, where):
        if "$ref" in node:
            ref = node["$ref"]
            prefix = "#/$defs/"
            if not ref.startswith(prefix) or ref[len(prefix):] not in self.defs:
                raise SchemaError(f"{where}: unknown $ref {ref}")
            name = ref[len(prefix):]
            return name, self.defs[name]
        return None, node

    def check_keywords(self, node, where):
        unknown = set(node) - KNOWN_KEYWORDS
        if unknown:
            raise SchemaError(f"{where}: keywords the C++ tables cannot express: {sorted(unknown)}")

    def types_of(self, node, where):
        """The JSON types a value of `node` may have, as C++ bit names."""
        name, node = self.resolve(node, where)
        self.check_keywords(node, where)
        if "anyOf" in node:
            out = []
            for i, branch in enumerate(node["anyOf"]):
                out += [t for t in self.types_of(branch, f"{where}.anyOf[{i}]") if t not in out]
            return out
        if "enum" in node:
            kinds = {type(v) for v in node["enum"]}
            if kinds != {str}:
                raise SchemaError(f"{where}: only enums of strings are supported")
            return ["kString"]
        given = node.get("type")
        if given is None:
            return []  # anything
        given = given if isinstance(given, list) else [given]
        for t in given:
            if t not in JSON_TYPES:
                raise SchemaError(f"{where}: unknown type {t}")
        return [JSON_TYPES[t] for t in given]

    def object_of(self, node, name, where):
        """The Object a member's value (or its items) is, visited first; or None."""
        ref_name, target = self.resolve(node, where)
        if target.get("type") == "array" and "items" in target:
            return self.object_of(target["items"], name, f"{where}.items")
        if "properties" in target:
            return self.visit(ref_name or name, target)
        return None

    def visit(self, name, node):
        if name in self.seen:
            return name
        if name in self.visiting:
            raise SchemaError(f"{name}: a cycle of objects; the tables need a tree")
        self.visiting.add(name)
        self.check_keywords(node, name)
        if node.get("additionalProperties", True) is not False:
            raise SchemaError(f"{name}: objects need additionalProperties: false")
        for member, sub in node["properties"].items():
            self.object_of(sub, f"{name}.{member}", f"{name}.{member}")
        self.visiting.discard(name)
        self.seen[name] = node
        self.objects.append((name, node))
        return name

    def field(self, owner, member, node, required, lines):
        where = f"{owner}.{member}"
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", member):
            raise SchemaError(f"{where}: a member name C++ cannot spell")
        _, target = self.resolve(node, where)
        types = self.types_of(node, where)
        parts = [f".name = {cpp_string(member)}", f".types = {' | '.join(types) or '0'}"]
        if required:
            parts.append(".required = true")
        if "enum" in target:
            values = f"k{camel(member)}Values"
            lines.append(f"inline constexpr absl::string_view {values}[] = "
                         f"{{{', '.join(cpp_string(v) for v in target['enum'])}}};")
            parts.append(f".values = {values}")
        for bound in ("minimum", "maximum"):
            if bound in target:
                value = target[bound]
                if not isinstance(value, int) or isinstance(value, bool):
                    raise SchemaError(f"{where}: {bound} must be an integer")
                parts.append(f".{bound} = int64_t{{{value}}}")
        inner = None
        if target.get("type") == "array" and "items" in target:
            inner = target["items"]
        elif target.get("type") == "object" and isinstance(
                target.get("additionalProperties"), dict):
            inner = target["additionalProperties"]
        if inner is not None:
            parts.append(f".item_types = {' | '.join(self.types_of(inner, where + '[]')) or '0'}")
        child = self.object_of(node, where, where)
        if child is not None:
            parts.append(f".object = &k{camel(child)}")
        if target.get("description"):
            parts.append(f".description = {cpp_string(target['description'])}")
        return "{" + ", ".join(parts) + "}"

    def emit(self):
        out = [
            "// Generated by schema/cpp_fields.py from schema/api.schema.json: do not edit.",
            "#pragma once",
            "",
            "#include <cstdint>",
            "",
            '#include "absl/strings/string_view.h"',
            '#include "spec/schema_field.h"',
            "",
            "namespace dlp::schema {",
        ]
        for name, node in self.objects:
            ns = snake(name)
            required = set(node.get("required", []))
            members = list(node["properties"].items())
            lines, fields = [], []
            for member, sub in members:
                fields.append(self.field(name, member, sub, member in required, lines))
            out += ["", f"namespace {ns} {{"] + lines
            out.append(f"inline constexpr absl::string_view kFieldNames[] = "
                       f"{{{', '.join(cpp_string(m) for m, _ in members)}}};")
            out.append("inline constexpr Field kFieldTable[] = {")
            out += [f"    {f}," for f in fields]
            out.append("};")
            for i, (member, _) in enumerate(members):
                ident = f"k{camel(member)}"
                if ident in ("kFieldNames", "kFieldTable"):
                    raise SchemaError(f"{name}.{member}: a name the tables use themselves")
                out.append(f"inline constexpr const Field& {ident} = kFieldTable[{i}];")
            out.append(f"}}  // namespace {ns}")
            out.append(f"inline constexpr Object k{camel(name)}{{{cpp_string(name)}, "
                       f"{ns}::kFieldTable, {ns}::kFieldNames, "
                       f"{cpp_string(node.get('description', ''))}}};")
        out += ["", "}  // namespace dlp::schema", ""]
        return "\n".join(out)


def main(argv):
    if len(argv) < 4:
        sys.stderr.write("usage: cpp_fields.py SCHEMA OUT.h ROOT...\n")
        return 2
    schema_path, out_path, roots = argv[1], argv[2], argv[3:]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    generator = Generator(schema)
    try:
        for root in roots:
            if root not in generator.defs:
                raise SchemaError(f"no definition {root}")
            generator.visit(root, generator.defs[root])
        text = generator.emit()
    except SchemaError as e:
        sys.stderr.write(f"{schema_path}: {e}\n")
        return 1
    if os.path.exists(out_path):
        with open(out_path, encoding="utf-8") as f:
            if f.read() == text:
                return 0
    os.makedirs(os.path.dirname(out_path) or ".", exist_ok=True)
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
