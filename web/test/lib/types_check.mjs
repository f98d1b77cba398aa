// Checks a JSON object dlpd sent against an interface of web/src/types.ts
// (hand-written until they are generated from a schema): every required
// member is there and nothing is there that the interface does not name.
// Reads the top-level members of `export interface NAME [extends BASE] {`.
import { readFileSync } from "node:fs";

const source = readFileSync(new URL("../../src/types.ts", import.meta.url), "utf8");

export function members(name) {
  const m = new RegExp(`export interface ${name}(?: extends (\\w+))? \\{\\n([\\s\\S]*?)\\n\\}`).exec(source);
  if (!m) throw new Error(`types.ts has no interface ${name}`);
  const out = m[1] ? members(m[1]) : new Map();
  for (const line of m[2].split("\n")) {
    const member = /^ {2}(\w+)(\?)?:/.exec(line);
    if (member) out.set(member[1], !member[2]);
  }
  return out;
}

// Throws naming what differs.
export function checkAgainst(name, value) {
  const want = members(name);
  const have = Object.keys(value);
  const missing = [...want].filter(([k, required]) => required && !(k in value)).map(([k]) => k);
  const unknown = have.filter((k) => !want.has(k));
  if (missing.length || unknown.length) {
    throw new Error(`${name}: dlpd sent ${JSON.stringify(have)}; missing ${missing}, not in types.ts: ${unknown}`);
  }
}
