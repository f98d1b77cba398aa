import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const { parseAnsi, stripAnsi } = await load("ansi");

test("plain text is one unstyled segment", () => {
  assert.deepEqual(parseAnsi("hello <script>x</script>"), [{ text: "hello <script>x</script>", style: {} }]);
});

test("palette colours, bold and reset", () => {
  assert.deepEqual(parseAnsi("a\x1b[1;31mred\x1b[0m b"), [
    { text: "a", style: {} },
    { text: "red", style: { bold: true, fg: 1 } },
    { text: " b", style: {} },
  ]);
  assert.deepEqual(parseAnsi("\x1b[92mok\x1b[39m."), [
    { text: "ok", style: { fg: 10 } },
    { text: ".", style: {} },
  ]);
});

test("256-colour and RGB colours", () => {
  assert.deepEqual(parseAnsi("\x1b[38;5;196mx"), [{ text: "x", style: { fg: "rgb(255,0,0)" } }]);
  assert.deepEqual(parseAnsi("\x1b[38;5;244mx"), [{ text: "x", style: { fg: "rgb(128,128,128)" } }]);
  assert.deepEqual(parseAnsi("\x1b[48;2;1;2;300mx"), [{ text: "x", style: { bg: "rgb(1,2,255)" } }]);
  assert.deepEqual(parseAnsi("\x1b[3m\x1b[23mx"), [{ text: "x", style: {} }]);
});

test("other escapes and control characters are dropped", () => {
  assert.equal(stripAnsi("\x1b[2K\r50%\x1b]0;title\x07 done\x1b[?25h"), "50% done");
  assert.equal(stripAnsi("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
  assert.equal(stripAnsi("tab\there\x00"), "tab\there");
});

test("a malformed or cut sequence does not throw", () => {
  assert.equal(stripAnsi("\x1b[38;9mx\x1b["), "x");
  assert.deepEqual(parseAnsi("\x1b[?1;31mx"), [{ text: "x", style: {} }]);
});
