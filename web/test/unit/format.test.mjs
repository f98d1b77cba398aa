import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const format = await load("format");

test("a replica's GPUs read as dlp describe writes them", () => {
  assert.equal(format.gpuShares([{ device: "0", millis: 1000 }, { device: "1", millis: 1000 }]), "0, 1");
  assert.equal(format.gpuShares([{ device: "0", millis: 500 }]), "0 (0.5)");
  assert.equal(format.gpuShares([{ device: "MIG-a", millis: 250 }]), "MIG-a (0.25)");
  assert.equal(format.gpuShares([]), "");
  assert.equal(format.gpuShares(undefined), "");
});
