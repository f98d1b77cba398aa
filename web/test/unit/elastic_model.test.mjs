import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const em = await load("elastic_model");

const job = (replicas, fields = {}) => ({ spec: { replicas }, ...fields });

test("a rigid job has no size facts", () => {
  assert.deepEqual(em.elasticFacts(job([{ role: "worker", count: 4 }])), []);
  assert.deepEqual(em.elasticFacts(job([{ role: "worker", count: 4, minCount: 4 }])), []);
  assert.equal(em.elasticRange(job([])), null);
});

test("an elastic job's size within its range, and its resizes", () => {
  const elastic = [{ role: "chief", count: 1 }, { role: "worker", count: 4, minCount: 2 }];
  assert.deepEqual(em.elasticRange(job(elastic)), { min: 2, max: 4 });
  assert.deepEqual(em.elasticFacts(job(elastic, { size: 2, resizes: 3 })),
    [["size", "2 (2-4)"], ["resizes", "3"]]);
  assert.deepEqual(em.elasticFacts(job(elastic)), [["size", "not started (2-4)"], ["resizes", "0"]]);
});

test("the resizes are the Resized events, oldest first", () => {
  const events = [
    { time: "t1", type: "Started", message: "on 2 CPUs" },
    { time: "t2", type: "Resized", message: "Resized 2→4 (capacity free)" },
    { time: "t3", type: "Resizing", message: "SIGUSR1 (checkpoint and stop)" },
    { time: "t4", type: "Resized", message: "Resized 4→2 (for job 17, priority 100)" },
  ];
  assert.deepEqual(em.resizeHistory(events).map((e) => e.time), ["t2", "t4"]);
});
