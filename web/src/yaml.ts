// A JSON value as block YAML, for showing a job's spec the way it was
// written. Strings are quoted whenever YAML could read them as something
// else. Pure: tested in Node.

const PLAIN = /^[A-Za-z_/.][A-Za-z0-9_./@+-]*( [A-Za-z0-9_./@+-]+)*$/;
const RESERVED = /^(true|false|yes|no|on|off|null|~|y|n)$/i;

function scalar(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : ".nan";
  if (typeof v === "boolean") return String(v);
  const s = String(v);
  if (PLAIN.test(s) && !RESERVED.test(s)) return s;
  return JSON.stringify(s);
}

// A multi-line string as a literal block ("|" keeps one final newline, "|-"
// none), its lines indented under the key; null when one would not read back
// the same (leading blanks on the first line, or trailing blank lines).
function literal(v: unknown, indent: string): string[] | null {
  if (typeof v !== "string" || !v.includes("\n") || /^[ \t]|\n\n$|[\r\x00-\x08\x0b-\x1f]/.test(v)) return null;
  const keep = v.endsWith("\n");
  const lines = (keep ? v.slice(0, -1) : v).split("\n");
  return [keep ? "|" : "|-", ...lines.map((l) => (l ? indent + l : ""))];
}

function key(k: string): string {
  return PLAIN.test(k) && !RESERVED.test(k) ? k : JSON.stringify(k);
}

function isEmpty(v: unknown): boolean {
  return Array.isArray(v) ? v.length === 0 : typeof v === "object" && v !== null && Object.keys(v).length === 0;
}

function block(v: unknown, indent: string): string[] {
  if (Array.isArray(v)) {
    return v.flatMap((item) => {
      if (typeof item === "object" && item !== null && !isEmpty(item)) {
        const inner = block(item, indent + "  ");
        return [`${indent}- ${inner[0].trimStart()}`, ...inner.slice(1)];
      }
      const lit = literal(item, indent + "  ");
      if (lit) return [`${indent}- ${lit[0]}`, ...lit.slice(1)];
      return [`${indent}- ${isEmpty(item) ? JSON.stringify(item) : scalar(item)}`];
    });
  }
  if (typeof v === "object" && v !== null) {
    return Object.entries(v).flatMap(([k, item]) => {
      if (typeof item === "object" && item !== null && !isEmpty(item)) {
        return [`${indent}${key(k)}:`, ...block(item, indent + "  ")];
      }
      const lit = literal(item, indent + "  ");
      if (lit) return [`${indent}${key(k)}: ${lit[0]}`, ...lit.slice(1)];
      return [`${indent}${key(k)}: ${isEmpty(item) ? JSON.stringify(item) : scalar(item)}`];
    });
  }
  return [indent + scalar(v)];
}

export function toYaml(v: unknown): string {
  return block(v, "").join("\n") + "\n";
}
