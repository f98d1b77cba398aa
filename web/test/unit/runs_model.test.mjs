import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const rm = await load("runs_model");

test("the runs view round-trips through the URL", () => {
  const q = new URLSearchParams("columns=metric.loss,param.lr&where=metric.acc%3E0.8&where=label.team%3Dvision&sort=-metric.loss&state=Succeeded");
  const v = rm.viewFromQuery(q);
  assert.deepEqual(v, { columns: ["metric.loss", "param.lr"], where: ["metric.acc>0.8", "label.team=vision"], sort: "-metric.loss", state: "Succeeded" });
  assert.deepEqual(rm.viewFromQuery(rm.viewToQuery(v)), v);
  assert.equal(rm.isRunsView(v), true);
  assert.equal(rm.isRunsView(rm.viewFromQuery(new URLSearchParams("state=Running"))), false);
});

test("conditions as typed, sorting by a header", () => {
  assert.deepEqual(rm.parseWhere("metric.acc>0.85 and label.team=vision, param.lr<0.1"), ["metric.acc>0.85", "label.team=vision", "param.lr<0.1"]);
  assert.equal(rm.nextSort("", "metric.loss"), "-metric.loss");
  assert.equal(rm.nextSort("-metric.loss", "metric.loss"), "metric.loss");
  assert.equal(rm.nextSort("metric.loss", "metric.loss"), "");
  assert.equal(rm.nextSort("-name", "metric.loss"), "-metric.loss");
});

test("cells: numbers shortened, missing as a dash", () => {
  assert.equal(rm.cellText(null), "–");
  assert.equal(rm.cellText(undefined), "–");
  assert.equal(rm.cellText(3), "3");
  assert.equal(rm.cellText(0.123456789), "0.12346");
  assert.equal(rm.cellText("vision"), "vision");
});

test("series are named by the parameters that differ, not by job id", () => {
  const runs = [
    { name: "tune-1", params: { lr: "0.1", layers: "3" }, labels: { "dlp.dev/sweep": "1", team: "v" } },
    { name: "tune-2", params: { lr: "0.2", layers: "3" }, labels: { "dlp.dev/sweep": "1", team: "v" } },
    { name: "tune-3", params: { lr: "0.3", layers: "3" }, labels: { "dlp.dev/sweep": "1", team: "n" } },
  ];
  const keys = rm.differing(runs);
  assert.deepEqual(keys, ["label.team", "lr"]);
  assert.equal(rm.seriesName(runs[0], keys), "tune-1 label.team=v lr=0.1");
  assert.equal(rm.seriesName({ name: "plain" }, keys), "plain");
  assert.deepEqual(rm.differing([runs[0], runs[0]]), []);
});

test("a DAG's layers follow the longest path", () => {
  const d = rm.layers([
    { name: "prep", dependsOn: [] },
    { name: "train", dependsOn: ["prep"] },
    { name: "eval", dependsOn: ["train", "prep"] },
    { name: "other", dependsOn: [] },
  ]);
  assert.deepEqual(Object.fromEntries(d), { prep: 0, train: 1, eval: 2, other: 0 });
});

test("parallel-coordinates axes: linear, log and categories", () => {
  const lin = rm.makeAxis("lr", ["0.1", "0.3", "0.2"]);
  assert.equal(rm.position(lin, "0.1"), 0);
  assert.equal(rm.position(lin, 0.3), 1);
  const log = rm.makeAxis("lr", ["0.001", "0.1"], true);
  assert.ok(Math.abs(rm.position(log, "0.01") - 0.5) < 1e-12);
  const cat = rm.makeAxis("opt", ["sgd", "adam", "sgd"], false, true);
  assert.deepEqual(cat.categories, ["adam", "sgd"]);
  assert.equal(rm.position(cat, "sgd"), 1);
  assert.equal(rm.position(rm.makeAxis("one", ["3"]), "3"), 0.5);
});

test("column suggestions from the runs, the sweeps' objectives and what is shown", () => {
  const got = rm.columnSuggestions([{ name: "a", params: { lr: "0.1" }, labels: { team: "v" } }], ["acc"], ["metric.loss"]);
  assert.deepEqual(got, ["label.team", "metric.acc", "metric.acc:max", "metric.acc:min", "metric.loss", "param.lr"]);
});
