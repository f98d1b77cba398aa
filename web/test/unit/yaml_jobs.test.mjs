import assert from "node:assert/strict";
import { test } from "node:test";
import { load } from "./load.mjs";

const { toYaml } = await load("yaml");
const jm = await load("jobs_model");

test("a spec as block YAML, ambiguous strings quoted", () => {
  const spec = {
    name: "mnist", labels: { team: "vision", "odd key": "yes" }, priority: 0,
    replicas: [{ role: "worker", count: 2, command: ["/bin/sh", "-c", "echo hi: there"], env: {} }],
    workdir: "/abs/path", preemptible: false, x: null,
  };
  assert.equal(toYaml(spec), [
    "name: mnist", "labels:", "  team: vision", '  odd key: "yes"', "priority: 0", "replicas:",
    "  - role: worker", "    count: 2", "    command:", "      - /bin/sh", '      - "-c"', '      - "echo hi: there"',
    "    env: {}", "workdir: /abs/path", "preemptible: false", "x: null", ""].join("\n"));
});

test("multi-line strings as literal blocks", () => {
  assert.equal(toYaml({ command: ["/bin/sh", "-c", "echo a\n  echo b\n"], s: "x\ny" }),
    "command:\n  - /bin/sh\n  - \"-c\"\n  - |\n    echo a\n      echo b\ns: |-\n  x\n  y\n");
  assert.equal(toYaml({ s: " lead\nx" }), 's: " lead\\nx"\n');
  assert.equal(toYaml({ s: "a\n\nb" }), "s: |-\n  a\n\n  b\n");
});

test("jobs merge by id, newest first", () => {
  const s = new jm.JobSet();
  const j = (id, state = "Running") => ({ id, name: `n${id}`, state, spec: {}, replicas: [] });
  assert.deepEqual(s.merge([j("9"), j("10"), j("2")]), ["9", "10", "2"]);
  assert.deepEqual(s.merge([j("9")]), []);
  assert.deepEqual(s.merge([j("9", "Succeeded")]), ["9"]);
  assert.deepEqual(s.all().map((x) => [x.id, x.state]), [["10", "Running"], ["9", "Succeeded"], ["2", "Running"]]);
  // A newer page and an older one merge into the order; a changed job is replaced in place.
  assert.deepEqual(s.merge([j("1"), j("11"), j("10", "Failed"), j("100")]), ["1", "11", "10", "100"]);
  assert.deepEqual(s.all().map((x) => [x.id, x.state]),
    [["100", "Running"], ["11", "Running"], ["10", "Failed"], ["9", "Succeeded"], ["2", "Running"], ["1", "Running"]]);
  s.clear();
  assert.deepEqual(s.merge([j("5"), j("4")]), ["5", "4"]);
  assert.deepEqual(s.all().map((x) => x.id), ["5", "4"]);
  assert.ok(jm.matchesSearch(j("3"), "N3"));
  assert.ok(!jm.matchesSearch(j("3"), "n4"));
});

test("older pages: several windows at once where ids run without gaps, else a cursor", () => {
  const jobs = (...ids) => ids.map((id) => ({ id: String(id), name: "n", state: "Queued" }));
  const range = (hi, lo) => jobs(...Array.from({ length: hi - lo + 1 }, (_, i) => hi - i));
  // The newest 500 of 10,000: pages below 9501, 8501, 7501 and 6501 at once.
  assert.deepEqual(jm.olderPages(range(10000, 9501), 1000, 4), ["9501", "8501", "7501", "6501"]);
  // Only the oldest page's worth of the set counts; never below id 1.
  assert.deepEqual(jm.olderPages([...jobs(20000, 15000), ...range(2500, 1501)], 1000, 4), ["1501", "501"]);
  assert.deepEqual(jm.olderPages(range(1000, 1), 1000, 4), []);
  // Gaps (a filter, another tenant's jobs): one page after the oldest.
  assert.deepEqual(jm.olderPages(jobs(90, 70, 50), 1000, 4), ["50"]);
  assert.deepEqual(jm.olderPages(jobs(1), 1000, 4), []);
  assert.deepEqual(jm.olderPages([], 1000, 4), []);
});

// Pages as dlpd answers them (the newest `limit` below `before`) over ids
// with and without gaps: the windows asked for at once, round after round,
// list every job once the pages end.
test("older pages list every job, with or without gaps", () => {
  for (const ids of [Array.from({ length: 2600 }, (_, i) => i + 1),
                     Array.from({ length: 2600 }, (_, i) => i + 1).filter((i) => i % 7 && (i < 900 || i > 1400)),
                     [1, 2, 3, 500, 501, 1700, 2600]]) {
    const page = (before, limit) => ids.filter((i) => i < before).slice(-limit).reverse();
    const set = new jm.JobSet();
    set.merge(page(Infinity, 500).map((i) => ({ id: String(i), name: "n", state: "Queued" })));
    for (let round = 0; round < 100; round++) {
      const befores = jm.olderPages(set.all(), 100, 4);
      if (!befores.length) break;
      const pages = befores.map((b) => page(Number(b), 100));
      for (const p of pages) set.merge(p.map((i) => ({ id: String(i), name: "n", state: "Queued" })));
      if (pages.some((p) => p.length < 100)) break;
    }
    assert.deepEqual(set.all().map((j) => Number(j.id)), [...ids].reverse());
  }
});

test("replicas: running of total, a queued job counts its spec", () => {
  const queued = { state: "Queued", replicas: [], spec: { replicas: [{ role: "w", count: 3 }, { role: "ps", count: 1 }] } };
  assert.equal(jm.replicaSummary(queued), "4");
  const running = { state: "Running", spec: {}, replicas: [{ state: "Running" }, { state: "Succeeded" }] };
  assert.equal(jm.replicaSummary(running), "1/2");
  assert.equal(jm.replicaSummary({ state: "Queued", replicas: [] }), "–"); // a fields=summary listing
});
