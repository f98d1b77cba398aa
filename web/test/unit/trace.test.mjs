import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const t = await load("trace");

// A merged trace as dlpd's GET /v1/jobs/ID/profile/trace answers (libdlp's
// MergeTraces): rank 1 restarted once, so its events come from two files.
const merged = {
  displayTimeUnit: "ms",
  traceEvents: [
    { name: "step", cat: "step", ph: "X", pid: 0, tid: 0, ts: 0, dur: 100 },
    { name: "allreduce", cat: "comm", ph: "X", pid: 0, tid: 200, ts: 50, dur: 20, args: { bytes: 4 } },
    { name: "data", cat: "phase", ph: "X", pid: 0, tid: 100, ts: 0, dur: 10 },
    { name: "step", cat: "step", ph: "X", pid: 1, tid: 0, ts: 2000, dur: 100, args: { restart: 1 } },
    { name: "step", cat: "step", ph: "X", pid: 1, tid: 0, ts: 1000, dur: 100 },
    { name: "ckpt", cat: "user", ph: "i", pid: 1, tid: 401, ts: 1500, s: "t" },
    { name: "loss", cat: "metric", ph: "C", pid: 1, tid: 500, ts: 1500, args: { loss: 1 } },
    { name: "process_name", ph: "M", pid: 0, tid: 0, args: { name: "rank 0 (h0)" } },
    { name: "process_sort_index", ph: "M", pid: 0, tid: 0, args: { sort_index: 0 } },
    { name: "process_name", ph: "M", pid: 1, tid: 0, args: { name: "rank 1" } },
    { name: "thread_name", ph: "M", pid: 1, tid: 401, args: { name: "user (thread 1)" } },
  ],
};

test("one timeline row per rank, hosts from the process names", () => {
  const { rows, end } = t.timelineRows(merged);
  assert.deepEqual(rows.map((r) => [r.rank, r.host]), [[0, "h0"], [1, ""]]);
  assert.equal(end, 2100);
});

test("one lane per category, in the category order, spans by start", () => {
  const [r0, r1] = t.timelineRows(merged).rows;
  assert.deepEqual(r0.lanes.map((l) => l.cat), ["step", "phase", "comm"]);
  assert.deepEqual(r0.lanes[2].spans[0], { name: "allreduce", cat: "comm", start: 50, dur: 20, args: { bytes: 4 } });
  // Counters are not spans; instants are, without a duration.
  assert.deepEqual(r1.lanes.map((l) => l.cat), ["step", "user"]);
  assert.deepEqual(r1.lanes[0].spans.map((s) => s.start), [1000, 2000]);
  assert.equal(r1.lanes[1].spans[0].dur, 0);
});

test("a trace without events has no rows", () => {
  assert.deepEqual(t.timelineRows({ traceEvents: [] }), { rows: [], end: 0 });
});
