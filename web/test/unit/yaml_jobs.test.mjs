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
  assert.equal(s.oldestId(), "2");
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

test("replicas: running of total, a queued job counts its spec", () => {
  const queued = { state: "Queued", replicas: [], spec: { replicas: [{ role: "w", count: 3 }, { role: "ps", count: 1 }] } };
  assert.equal(jm.replicaSummary(queued), "4");
  const running = { state: "Running", spec: {}, replicas: [{ state: "Running" }, { state: "Succeeded" }] };
  assert.equal(jm.replicaSummary(running), "1/2");
  assert.equal(jm.replicaSummary({ state: "Queued", replicas: [] }), "–"); // a fields=summary listing
});
