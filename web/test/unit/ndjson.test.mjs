import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const { NdjsonReader, readNdjson } = await load("ndjson");
const enc = (s) => new TextEncoder().encode(s);

test("values split across chunks, blank keep-alive lines skipped", () => {
  const got = [];
  const bad = [];
  const r = new NdjsonReader((v) => got.push(v), (l) => bad.push(l));
  r.push(enc('{"a":1}\n{"b"'));
  r.push(enc(':2}\n\n\n'));
  r.push(enc("not json\n"));
  r.push(enc('{"c":3}'));
  assert.deepEqual(got, [{ a: 1 }, { b: 2 }]);
  r.end();
  assert.deepEqual(got, [{ a: 1 }, { b: 2 }, { c: 3 }]);
  assert.deepEqual(bad, ["not json"]);
});

test("a UTF-8 character split between chunks", () => {
  const got = [];
  const r = new NdjsonReader((v) => got.push(v));
  const bytes = enc('{"t":"µs ✓"}\n');
  r.push(bytes.slice(0, 8));
  r.push(bytes.slice(8));
  r.end();
  assert.deepEqual(got, [{ t: "µs ✓" }]);
});

test("readNdjson reads a stream to its end", async () => {
  const stream = new ReadableStream({
    start(c) {
      c.enqueue(enc('{"replica":"worker-0","text":"a"}\n{"rep'));
      c.enqueue(enc('lica":"worker-1","text":"b"}\n'));
      c.close();
    },
  });
  const got = [];
  await readNdjson(stream, (v) => got.push(v.replica));
  assert.deepEqual(got, ["worker-0", "worker-1"]);
});
