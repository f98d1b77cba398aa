// The field reference of docs/api-reference.md, made from api.schema.json:
//   node schema/reference.mjs > docs/api-reference.md
// web/test/unit/api_reference.test.mjs fails when the committed file differs.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const schemaPath = fileURLToPath(new URL("./api.schema.json", import.meta.url));

// A member's type as a reader of the docs writes it.
function typeOf(s) {
  if (s.$ref) {
    const name = s.$ref.split("/").pop();
    return `[${name}](#${name.toLowerCase()})`;
  }
  if (s.anyOf) return s.anyOf.map(typeOf).join(" or ");
  if (s.enum) return s.enum.map((v) => `\`"${v}"\``).join(", ");
  if (s.type === "array") return `list of ${typeOf(s.items)}`;
  if (s.type === "object" && s.properties) return "object (below)";
  if (s.type === "object") return `map to ${typeOf(s.additionalProperties)}`;
  return s.type;
}

function rows(prefix, s, out) {
  const required = new Set(s.required ?? []);
  for (const [name, member] of Object.entries(s.properties ?? {})) {
    const path = `${prefix}${name}`;
    const what = [member.description, required.has(name) ? "" : "optional"].filter(Boolean).join("; ");
    out.push(`| \`${path}\` | ${typeOf(member).replaceAll("|", "\\|")} | ${what.replaceAll("|", "\\|")} |`);
    const nested = member.type === "object" && member.properties ? member
      : member.type === "array" && member.items?.properties ? member.items : null;
    if (nested) rows(`${path}${member.type === "array" ? "[]" : ""}.`, nested, out);
  }
  // Members named by a pattern ("^gpu\\."): the pattern stands for the name.
  for (const [pattern, member] of Object.entries(s.patternProperties ?? {})) {
    const what = [member.description, "optional"].filter(Boolean).join("; ");
    out.push(`| \`${prefix}${pattern}\` | ${typeOf(member)} | ${what.replaceAll("|", "\\|")} |`);
  }
}

export function reference() {
  const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
  const out = [
    "# dlpd's JSON, field by field",
    "",
    "Generated from `schema/api.schema.json` by `node schema/reference.mjs`: do not edit.",
    "docs/api.md says which endpoint sends or takes each form.",
    "",
  ];
  for (const [name, def] of Object.entries(schema.$defs)) {
    out.push(`## ${name}`, "");
    if (def.description) out.push(def.description, "");
    if (def.properties) {
      out.push("| field | type | notes |", "| --- | --- | --- |");
      rows("", def, out);
    } else {
      out.push(`${typeOf(def)}`);
    }
    out.push("");
  }
  return out.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(reference());
