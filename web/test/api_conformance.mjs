// dlpd's JSON against schema/api.schema.json, the one description of the API:
// a real dlpd (with `--gpus 2`) runs real jobs — whole and shared GPUs, a
// queued one, a traced 2-rank fmnist-train, a pipeline, a sweep, a model — and
// every answer of every read endpoint must match its definition exactly. A
// field the schema lacks, or one of another type, fails the test (every object
// of the schema has additionalProperties: false).
//
// usage: node web/test/api_conformance.mjs BUILD_DIR   (ctest: api_conformance)
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import { DlpEnv } from "./lib/dlp_env.mjs";

const build = resolve(process.argv[2] ?? "build");
const schemaPath = fileURLToPath(new URL("../../schema/api.schema.json", import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(schema);

const env = new DlpEnv(build, { dlpdArgs: ["--gpus", "2"] });
const checked = new Set();
let failures = 0;

// GETs (or `method`s) `path` with the owner's token and checks the answer
// against `def`. headers: instead of the owner's bearer token (a UI
// session's cookie).
async function expectConforms(path, def, { status = 200, headers, method = "GET" } = {}) {
  const res = await fetch(`${env.base}${path}`, { method, headers: headers ?? { Authorization: `Bearer ${env.token}` } });
  const body = await res.json();
  const validate = ajv.getSchema(`${schema.$id}#/$defs/${def}`);
  assert.ok(validate, `no definition ${def} in the schema`);
  const ok = res.status === status && validate(body);
  checked.add(def);
  if (ok) {
    console.log(`ok   ${method} ${path} is a ${def}`);
    return body;
  }
  failures += 1;
  console.log(`FAIL ${method} ${path}: status ${res.status} (expected ${status}), not a ${def}:`);
  for (const e of validate.errors ?? []) console.log(`  ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  console.log(`  body: ${JSON.stringify(body).slice(0, 2000)}`);
  return body;
}

function waitUntil(what, predicate, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  return (async () => {
    for (;;) {
      const value = await predicate();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
}

try {
  env.start();
  env.token = readFileSync(join(env.stateDir(), "dlpd.token"), "utf8").trim();
  await expectConforms("/v1/health", "Health");
  await expectConforms("/v1/admin/tenants", "TenantList");
  await expectConforms("/v1/gpus", "GpuList");

  // Both GPUs held until the test lets go, so that the next GPU job queues.
  const whole = env.submit("whole", `echo DLP_METRIC loss=0.5 step=1; echo model > "$DLP_OUTPUT_DIR/model.bin"
    while [ ! -e ${env.work("go")} ]; do sleep 0.05; done`, { gpu: 2, extra: "  successPolicy: {roles: [worker]}\n" });
  await waitUntil("the whole-GPU job to run", () => env.status(whole).state === "Running");
  await expectConforms(`/v1/jobs/${whole}`, "Job");  // its replicas' GPU placement
  const queued = env.submit("queued", "true", { count: 2, gpu: 0.5 });
  await waitUntil("a position for the queued job", () => env.status(queued).position != null);
  await expectConforms(`/v1/jobs/${queued}`, "Job");
  await expectConforms(`/v1/jobs/${queued}/why`, "Why");
  // Once the sampler has seen the running replica, so that the list is not empty.
  await waitUntil("a usage sample", async () => {
    const res = await fetch(`${env.base}/v1/jobs/${whole}/usage`, { headers: { Authorization: `Bearer ${env.token}` } });
    return (await res.json()).replicas?.length > 0;
  }, 30_000);
  await expectConforms(`/v1/jobs/${whole}/usage`, "UsageList");
  await expectConforms("/v1/queues", "QueueStandingList");
  env.touch("go");
  env.dlp(["wait", whole]);
  env.dlp(["wait", queued]);

  // A traced 2-rank training run, for the profile.
  const train = [join(env.bin, "fmnist-train"), "--limit-train", "1024", "--limit-test", "128",
    "--epochs", "1", "--batch", "64", "--device", "cpu"].join(" ");
  const traced = env.submit("fmnist", `DLP_TRACE=1 exec ${train}`, { count: 2, cpu: "500m" });
  env.dlp(["wait", traced]);

  for (const id of [whole, queued, traced]) {
    await expectConforms(`/v1/jobs/${id}`, "Job");
    await expectConforms(`/v1/jobs/${id}/events`, "JobEventList");
    await expectConforms(`/v1/jobs/${id}/why`, "Why");
  }
  await expectConforms(`/v1/jobs/${traced}/profile`, "Profile");
  await expectConforms("/v1/jobs", "JobList");
  await expectConforms("/v1/jobs?fields=summary", "JobSummaryList");
  await expectConforms(`/v1/jobs/${whole}/artifacts`, "ArtifactList");

  env.dlp(["model", "register", "fm", "--job", whole, "--path", "model.bin", "--alias", "staging"]);
  await expectConforms("/v1/models/fm", "ModelVersion");
  await expectConforms("/v1/models", "ModelList");

  const pipeline = join(env.dir, "pipeline.yaml");
  writeFileSync(pipeline, `apiVersion: dlp/v1\nkind: Pipeline\nmetadata: {name: p}\nspec:\n  jobs:\n` +
    `    a: {replicas: {worker: {command: ["true"]}}}\n` +
    `    b: {dependsOn: [{job: a}], replicas: {worker: {command: ["true"]}}}\n` +
    `    c: {dependsOn: [{job: a, condition: failed}], replicas: {worker: {command: ["true"]}}}\n`);
  env.dlp(["submit", "--wait", pipeline], { check: false });
  const pipelines = await expectConforms("/v1/pipelines", "PipelineList");
  await expectConforms(`/v1/pipelines/${pipelines.pipelines[0].id}`, "Pipeline");

  const sweep = join(env.dir, "sweep.yaml");
  writeFileSync(sweep, `apiVersion: dlp/v1\nkind: Sweep\nmetadata: {name: s}\nspec:\n` +
    `  objective: {metric: acc, goal: maximize}\n  search: {algorithm: grid}\n  maxTrials: 2\n  parallelism: 2\n` +
    `  parameters:\n    lr: {type: categorical, values: ["0.1", "0.2"]}\n` +
    `  template:\n    replicas:\n      worker:\n        command: [/bin/sh, -c, "echo DLP_METRIC acc=\${params.lr} step=1"]\n`);
  env.dlp(["submit", "--wait", sweep], { check: false });
  const sweeps = await expectConforms("/v1/sweeps", "SweepList");
  await expectConforms(`/v1/sweeps/${sweeps.sweeps[0].id}`, "Sweep");
  // The runs table: a trial's parameters, a metric, a label and a missing column.
  const runs = await expectConforms(
    `/v1/jobs?columns=param.lr,metric.acc,metric.acc:max,label.dlp.dev/sweep,metric.none&sort=-metric.acc&limit=5`, "RunsPage");
  assert.ok(runs.jobs.some((r) => r.params?.lr && typeof r.values["metric.acc"] === "number"), JSON.stringify(runs.jobs[0]));
  await expectConforms("/v1/usage/history?hours=1", "UsageHistory");

  await expectConforms("/v1/jobs/999999", "ErrorReply", { status: 404 });

  // Deleting a pipeline or a sweep answers it as it was.
  await expectConforms(`/v1/pipelines/${pipelines.pipelines[0].id}`, "Pipeline", { method: "DELETE" });
  await expectConforms(`/v1/sweeps/${sweeps.sweeps[0].id}`, "Sweep", { method: "DELETE" });
  await expectConforms(`/v1/sweeps/${sweeps.sweeps[0].id}`, "ErrorReply", { status: 404, method: "DELETE" });

  // A web UI session: signed in with a one-time code, as the browser is.
  const signIn = await fetch(await env.signInUrl(), { redirect: "manual" });
  const cookie = signIn.headers.get("set-cookie")?.split(";")[0];
  assert.ok(cookie, `no session cookie from the sign-in (status ${signIn.status})`);
  await expectConforms("/v1/ui/session", "Session", { headers: { Cookie: cookie } });
} catch (e) {
  failures += 1;
  console.log(`FAIL ${e?.stack ?? e}`);
} finally {
  env.stop();
}

// Every definition of a reply is exercised, so that none drifts unseen.
const replies = ["Health", "GpuList", "Job", "Why", "UsageList", "QueueStandingList", "JobEventList",
  "Profile", "JobList", "JobSummaryList", "ArtifactList", "ModelVersion", "ModelList", "PipelineList",
  "Pipeline", "SweepList", "Sweep", "RunsPage", "UsageHistory", "ErrorReply", "Session"];
const unchecked = replies.filter((d) => !checked.has(d));
if (unchecked.length) {
  failures += 1;
  console.log(`FAIL never checked: ${unchecked.join(", ")}`);
}
console.log(failures ? `${failures} failed` : "all answers match the schema");
process.exit(failures ? 1 : 0);
