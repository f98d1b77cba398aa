import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const m = await load("metrics");

test("metric lines as libdlp's ParseMetricLine reads them", () => {
  assert.deepEqual(m.parseMetricLine("DLP_METRIC loss=0.25 step=10"), { name: "loss", value: 0.25, step: 10 });
  assert.deepEqual(m.parseMetricLine("DLP_METRIC acc=1e-3\r"), { name: "acc", value: 0.001, step: -1 });
  assert.deepEqual(m.parseMetricLine("DLP_METRIC  x=-2  step=3 "), { name: "x", value: -2, step: 3 });
  assert.ok(Number.isNaN(m.parseMetricLine("DLP_METRIC x=nan").value));
  for (const bad of ["DLP_METRIC", "DLP_METRIC =1", "DLP_METRIC x=", "DLP_METRIC x=abc", "DLP_METRIC x=1 step=a",
    "DLP_METRIC x=1 epoch=2", "DLP_METRIC x=1 step=2 more", "  DLP_METRIC x=1", "DLP_METRICx=1"]) {
    assert.equal(m.parseMetricLine(bad), null, bad);
  }
});

test("only stdout lines are metrics", () => {
  const line = { replica: "worker-1", stream: "stderr", time: "t", text: "DLP_METRIC loss=1 step=1" };
  assert.equal(m.metricFromLogLine(line), null);
  assert.deepEqual(m.metricFromLogLine({ ...line, stream: "stdout" }),
    { name: "loss", value: 1, step: 1, replica: "worker-1", time: "t" });
});

test("series per replica and name, aligned on x", () => {
  const p = (replica, name, value, step) => ({ replica, name, value, step, time: "2026-01-01T00:00:00Z" });
  const s = m.toSeries([p("w0", "loss", 3, 1), p("w1", "loss", 4, 2), p("w0", "loss", 2, 2), p("w0", "acc", 0.5, 1)]);
  assert.deepEqual(s.map((x) => [x.label, x.name, x.x, x.y]),
    [["w0", "acc", [1], [0.5]], ["w0", "loss", [1, 2], [3, 2]], ["w1", "loss", [2], [4]]]);
  assert.deepEqual(m.align(s.slice(1)), [[1, 2], [3, 2], [null, 4]]);
});

test("smoothing is a debiased moving average", () => {
  assert.deepEqual(m.smooth([1, 2, 3], 0), [1, 2, 3]);
  const s = m.smooth([4, 4, 4], 0.9);
  s.forEach((v) => assert.ok(Math.abs(v - 4) < 1e-12));
  const t = m.smooth([0, 10], 0.5);
  assert.equal(t[0], 0);
  assert.ok(Math.abs(t[1] - 10 * 0.5 / 0.75) < 1e-12);
});

test("CSV has dlp metrics -o csv's columns", () => {
  assert.equal(m.toCsv([{ replica: "w,0", name: "loss", step: 1, value: 0.5, time: "T" }]),
    'replica,name,step,value,time\n"w,0",loss,1,0.5,T\n');
});

test("a chart holds rank 0's series per job unless asked for every replica or an aggregate", () => {
  const s = (label, x, y) => ({ label, name: "loss", x, y });
  const series = [s("7/worker-1", [1, 2], [4, 6]), s("7/chief-0", [1, 2], [2, 2]), s("9/worker-0", [1], [5]),
    s("9/worker-10", [1], [1]), s("9/worker-2", [1], [3])];
  assert.deepEqual(m.pickSeries(series, "rank0").map((x) => x.label), ["7/chief-0", "9/worker-0"]);
  assert.equal(m.pickSeries(series, "each").length, 5);
  const mean = m.pickSeries(series, "mean");
  assert.deepEqual(mean.map((x) => [x.label, x.x, x.y]),
    [["7/mean of 2 replicas", [1, 2], [3, 4]], ["9/mean of 3 replicas", [1], [3]]]);
  assert.deepEqual(m.pickSeries(series, "max").map((x) => x.y), [[4, 6], [5]]);
  assert.deepEqual(m.pickSeries([s("worker-3", [0], [1]), s("worker-0", [0], [2])], "rank0").map((x) => x.label), ["worker-0"]);
});
