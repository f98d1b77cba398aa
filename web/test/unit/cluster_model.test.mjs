import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const cm = await load("cluster_model");

test("CPU quantities as specs write them", () => {
  assert.equal(cm.cpuCores("500m"), 0.5);
  assert.equal(cm.cpuCores("2"), 2);
  assert.equal(cm.cpuCores(1.5), 1.5);
  assert.equal(cm.cpuCores(""), 0);
  assert.equal(cm.cpuCores("lots"), 0);
});

test("running jobs' CPUs and GPUs by queue and tenant", () => {
  const job = (tenant, queue, state, replicas) => ({ tenant, queue, state, spec: { replicas } });
  const held = cm.heldBy([
    job("alice", "gpu", "Running", [{ count: 2, resources: { cpu: "500m", gpu: 1 } }]),
    job("alice", "gpu", "Running", [{ count: 1, resources: { cpu: "2", gpu: 0.5 } }]),
    job("bob", "", "Running", [{ count: 4, resources: { cpu: "250m", gpu: 0 } }]),
    job("bob", "", "Queued", [{ count: 4, resources: { cpu: "4", gpu: 0 } }]),
  ]);
  assert.deepEqual(held, [
    { queue: "default", tenant: "bob", jobs: 1, cpu: 1, gpu: 0 },
    { queue: "gpu", tenant: "alice", jobs: 2, cpu: 3, gpu: 2.5 },
  ]);
});
