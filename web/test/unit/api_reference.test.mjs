// docs/api-reference.md is exactly what schema/reference.mjs makes of
// schema/api.schema.json: the docs cannot fall behind the schema.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { reference } from "../../../schema/reference.mjs";

test("docs/api-reference.md is generated from the schema", () => {
  const committed = readFileSync(fileURLToPath(new URL("../../../docs/api-reference.md", import.meta.url)), "utf8");
  assert.equal(committed, reference(), "run: node schema/reference.mjs > docs/api-reference.md");
});
