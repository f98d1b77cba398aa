import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const t = await load("trace");

// A rank's file as the runtime writes it while running: no closing "]", a torn last line.
function rankFile(rank, offset, { data = 10, comm = 20 } = {}) {
  const ev = [
    { name: "dlp_meta", ph: "M", pid: rank, args: { rank, world_size: 2, restart: 0, host: `h${rank}` } },
    { name: "dlp_clock_offset", ph: "M", pid: rank, args: { offset_us: offset, rtt_us: 5 } },
  ];
  for (let s = 0; s < 3; s++) {
    const ts = 1000 + s * 1000 - offset;
    ev.push({ name: "step", cat: "step", ph: "X", ts, dur: 100, pid: rank, tid: 0, args: { samples: 32 } });
    ev.push({ name: "data", cat: "phase", ph: "X", ts, dur: data, pid: rank, tid: 0 });
    ev.push({ name: "allreduce", cat: "comm", ph: "X", ts: ts + 50, dur: comm, pid: rank, tid: 0, args: { bytes: 4 } });
  }
  return { name: `rank-${rank}.trace.json`, content: "[\n" + ev.map((e) => JSON.stringify(e) + ",\n").join("") + '{"name":"st' };
}

test("files are read line by line, ranks and hosts from dlp_meta", () => {
  const traces = t.parseTraceFiles([rankFile(1, 500), rankFile(0, 0)]);
  assert.deepEqual(traces.map((x) => [x.rank, x.host, x.offsetUs, x.events.length]), [[0, "h0", 0, 9], [1, "h1", 500, 9]]);
});

test("a complete array and a traceEvents object are read too", () => {
  const ev = [{ name: "s", cat: "step", ph: "X", ts: 5, dur: 1, pid: 3 }];
  assert.equal(t.parseTraceFile({ name: "x.json", content: JSON.stringify(ev) }).rank, 3);
  assert.equal(t.parseTraceFile({ name: "rank-2.restart-1.trace.json", content: JSON.stringify({ traceEvents: [] }) }).restart, 1);
});

test("one timeline row per rank, on rank 0's clock", () => {
  const { rows, end } = t.timelineRows(t.parseTraceFiles([rankFile(0, 0), rankFile(1, 500)]));
  assert.deepEqual(rows.map((r) => r.rank), [0, 1]);
  assert.deepEqual(rows[0].lanes.map((l) => l.cat), ["step", "phase", "comm"]);
  assert.equal(rows[1].lanes[0].spans[0].start, 0); // offsets applied: both ranks' steps line up
  assert.equal(end, 2100);
});

test("the merged Chrome trace names processes and tracks", () => {
  const doc = JSON.parse(t.mergeTraces(t.parseTraceFiles([rankFile(0, 0), rankFile(1, 500)])));
  const names = doc.traceEvents.filter((e) => e.name === "process_name").map((e) => e.args.name);
  assert.deepEqual(names, ["rank 0 (h0)", "rank 1 (h1)"]);
  const comm = doc.traceEvents.find((e) => e.cat === "comm" && e.pid === 1);
  assert.equal(comm.tid, 200);
  assert.equal(comm.ts, 50);
});

test("the straggler is the rank with the most work per step", () => {
  const files = [rankFile(0, 0), rankFile(1, 0, { data: 60, comm: 5 }), rankFile(2, 0)];
  files[2].name = "rank-2.trace.json";
  const { ranks, straggler } = t.summarize(t.parseTraceFiles(files));
  assert.deepEqual(ranks.map((r) => Number(r.workMs.toFixed(6))), [0.08, 0.095, 0.08]);
  assert.equal(straggler.rank, 1);
  assert.equal(straggler.phase, "data");
  assert.match(straggler.message, /^rank 1 is 1\.19× the median step time \(excluding collective waits\): data loading$/);
  assert.equal(t.summarize(t.parseTraceFiles([rankFile(0, 0), rankFile(1, 0)])).straggler, null);
});
