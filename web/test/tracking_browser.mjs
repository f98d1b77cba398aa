// Experiment tracking in a real browser (Debian's headless Chromium through
// puppeteer-core) against a real dlpd with real jobs: a 6-trial ASHA sweep's
// page (leaderboard, parallel coordinates, rungs) against `dlp sweep status
// -o json`; the runs table sorted and filtered by dlpd; comparing three of
// its trials (series named by the parameter that differs); a pipeline's DAG
// with a skipped branch; a registered model's download against its SHA-256
// and a job's artifacts; another tenant sees none of it (404) and artifact
// paths cannot leave the job's folder; the first load's size; the pages at
// 800 px. Screenshots go to BUILD_DIR/test-artifacts/web-tracking/.
//
// usage: node web/test/tracking_browser.mjs BUILD_DIR   (ctest: web_tracking)
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { join, resolve } from "node:path";
import { DlpEnv } from "./lib/dlp_env.mjs";
import { Steps, newPage, waitFor, waitWithoutError } from "./lib/steps.mjs";

const build = resolve(process.argv[2] ?? "build");
const steps = new Steps(join(build, "test-artifacts/web-tracking"));
const env = new DlpEnv(build);
const FIRST_LOAD_BUDGET = 300 * 1024;

// Every trial prints its score for each epoch up to ${resource} (score = lr·epoch/3, so a
// larger lr is better), a little apart so that ASHA can stop the worse ones at rung 1.
const SWEEP = `apiVersion: dlp/v1
kind: Sweep
metadata: {name: tune}
spec:
  objective: {metric: score, goal: maximize}
  search: {algorithm: asha, resource: epoch, min: 1, max: 3, reductionFactor: 3, seed: 11}
  maxTrials: 6
  parallelism: 6
  parameters:
    lr: {type: float, min: 0.1, max: 0.9}
    layers: {type: categorical, values: ["3"]}
  template:
    replicas:
      worker:
        count: 1
        command: [/bin/sh, -c, 'for e in $(seq 1 \${resource}); do awk -v lr=\${params.lr} -v e=$e "BEGIN{printf \\"DLP_METRIC score=%.4f step=%d\\\\n\\", lr*e/3, e}"; sleep 0.5; done']
        resources: {cpu: 100m}
`;

const PIPELINE = `apiVersion: dlp/v1
kind: Pipeline
metadata: {name: flow}
spec:
  jobs:
    prep:
      replicas: {worker: {command: [/bin/sh, -c, "echo prep"], resources: {cpu: 100m}}}
    train:
      dependsOn: [{job: prep}]
      replicas: {worker: {command: [/bin/sh, -c, "echo train"], resources: {cpu: 100m}}}
    eval:
      dependsOn: [{job: train, condition: succeeded}]
      replicas: {worker: {command: [/bin/sh, -c, "echo eval"], resources: {cpu: 100m}}}
    report-failure:
      dependsOn: [{job: train, condition: failed}]
      replicas: {worker: {command: [/bin/sh, -c, "echo failed"], resources: {cpu: 100m}}}
`;

// The bytes of `path` as sent with gzip (node's fetch would decode them).
function gzipBytes(url) {
  return new Promise((ok, fail) => {
    request(url, { headers: { "Accept-Encoding": "gzip" } }, (res) => {
      let n = 0;
      res.on("data", (c) => (n += c.length));
      res.on("end", () => ok({ n, encoding: res.headers["content-encoding"] }));
    }).on("error", fail).end();
  });
}

// SHA-256 of what the page downloads from `href` (same-origin, its session).
const sha256In = (page, href) => page.evaluate(async (u) => {
  const digest = await crypto.subtle.digest("SHA-256", await (await fetch(u)).arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}, href);

let browser;
try {
  const base = env.start();
  browser = await steps.launch();
  const page = await newPage(await browser.createBrowserContext());
  await page.goto(await env.signInUrl());
  await page.waitForSelector("[data-test=tenant]");
  const ids = {};

  await steps.step("a 6-trial ASHA sweep: leaderboard, parallel coordinates and rungs as dlp sweep status says", async () => {
    writeFileSync(join(env.dir, "sweep.yaml"), SWEEP);
    ids.sweep = env.dlp(["sweep", "submit", "-q", join(env.dir, "sweep.yaml")]).trim().split("\n")[0];
    await page.goto(`${base}/sweeps/${ids.sweep}`);
    await waitWithoutError(page, "[data-test=leaderboard]");
    await steps.shot(page, "sweep-running");
    const status = await waitFor("the sweep to end", () => {
      const s = JSON.parse(env.dlp(["sweep", "status", ids.sweep, "-o", "json"]));
      return s.state !== "Running" && s;
    });
    assert.equal(status.trials.length, 6);
    const scored = status.trials.filter((t) => t.objective !== null);
    assert.ok(scored.length >= 3, `trials with an objective: ${scored.length}`);
    // The page follows the sweep to its end by itself.
    await page.waitForFunction((n) => document.querySelectorAll("[data-test=leaderboard] tbody tr[data-job]:not([data-job=''])").length === n &&
      document.querySelector("h1 .state")?.textContent !== "Running", {}, status.trials.length);
    await page.waitForFunction((n) => document.querySelectorAll("[data-test=parallel] path.pc-line").length === n, {}, scored.length);
    for (const t of status.trials) {
      const row = `[data-test=leaderboard] tr[data-job="${t.job}"]`;
      const shown = await page.$eval(row, (tr) => ({
        objective: tr.querySelector("[data-test=objective]").getAttribute("data-value"),
        lr: tr.querySelector("[data-param=lr]").textContent,
        state: tr.querySelector(".state").textContent,
        why: tr.querySelector(".trial-why").textContent,
      }));
      assert.equal(shown.objective, String(t.objective), `objective of job ${t.job}`);
      assert.equal(Number(shown.lr), t.params.lr, `lr of job ${t.job}`);
      assert.equal(shown.state, t.state);
      assert.equal(shown.why, t.reason || (t.state === "Succeeded" ? "finished" : ""));
    }
    const lines = await page.$$eval("[data-test=parallel] path.pc-line", (ps) => ps.map((p) => [p.getAttribute("data-trial"), p.getAttribute("data-objective")]));
    const byTrial = new Map(lines);
    const sweep = await page.evaluate(async (id) => (await fetch(`/v1/sweeps/${id}`)).json(), ids.sweep);
    for (const t of status.trials.filter((x) => x.objective !== null)) {
      const number = sweep.trials.find((x) => x.job === t.job).trial;
      assert.equal(byTrial.get(String(number)), String(t.objective), `parallel line of trial ${number}`);
    }
    assert.deepEqual(await page.$$eval("[data-test=parallel] .pc-name", (ts) => ts.map((t) => t.textContent)), ["lr", "layers", "score"]);
    await page.waitForSelector("[data-test=rungs]");
    await page.waitForSelector("figure.chart[data-metric=score]");
    ids.status = status;
    await steps.shot(page, "sweep");
  });

  await steps.step("the runs table: the sweep's trials by score, filtered by dlpd; three compared by lr", async () => {
    const trials = ids.status.trials.filter((t) => t.objective !== null).sort((a, b) => b.objective - a.objective);
    await page.goto(`${base}/jobs?columns=param.lr,metric.score,metric.score:max&where=label.dlp.dev/sweep=${ids.sweep}&sort=-metric.score`);
    await page.waitForFunction((n) => document.querySelector("[data-test=run-count]")?.textContent === `${n} runs`, {}, ids.status.trials.length);
    const rows = await page.$$eval(".run-row[data-job]", (rs) => rs.map((r) => ({ id: r.dataset.job, score: Number(r.querySelector("[data-column='metric.score']").textContent) })));
    // Every trial, by its last score (a stopped trial may have printed one more
    // epoch than the objective its rung recorded), as `dlp metrics` reads it.
    assert.deepEqual(rows.map((r) => r.id).sort(), ids.status.trials.map((t) => t.job).sort());
    for (const r of rows) {
      const points = JSON.parse(env.dlp(["metrics", r.id, "-o", "json"])).metrics.filter((p) => p.name === "score");
      assert.equal(r.score, points.at(-1).value, `score of job ${r.id}`);
    }
    assert.deepEqual(rows.map((r) => r.score), rows.map((r) => r.score).sort((a, b) => b - a));
    // A filter on a metric, as typed into the page.
    await page.$eval("input[name=where]", (i) => (i.value = ""));
    const cut = rows[1].score;
    await page.type("input[name=where]", `label.dlp.dev/sweep=${ids.sweep} metric.score>=${cut}`);
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => new URL(location.href).searchParams.getAll("where").length === 2);
    const passing = rows.filter((r) => r.score >= cut).length;
    await page.waitForFunction((n) => document.querySelector("[data-test=run-count]")?.textContent === `${n} runs`, {}, passing);
    assert.match(new URL(page.url()).search, /sort=-metric\.score/);
    await steps.shot(page, "runs");
    // Three trials, compared: series named by the one parameter that differs.
    await page.goto(`${base}/jobs?columns=param.lr,metric.score&where=label.dlp.dev/sweep=${ids.sweep}&sort=-metric.score`);
    await page.waitForSelector(".run-row[data-job]");
    const three = trials.slice(0, 3);
    for (const t of three) await page.click(`.run-row[data-job="${t.job}"] input[type=checkbox]`);
    await Promise.all([page.waitForFunction(() => location.pathname === "/compare"), page.click("[data-test=compare]")]);
    await page.waitForSelector("figure.chart[data-metric=score] tr[data-series]");
    const series = await page.$$eval("figure.chart[data-metric=score] tr[data-series]", (rs) => rs.map((r) => r.getAttribute("data-series")));
    const expected = three.map((t) => `${env.status(t.job).name} lr=${ids.status.trials.find((x) => x.job === t.job).params.lr}`);
    assert.deepEqual(series.sort(), expected.sort());
    assert.equal(await page.$eval("[data-test=compare-params] tr[data-param=lr]", (r) => r.className), "differs");
    assert.equal(await page.$eval("[data-test=compare-params] tr[data-param=layers]", (r) => r.className), "");
    await steps.shot(page, "compare");
  });

  await steps.step("a pipeline's DAG shows each job's state, the branch for failure skipped", async () => {
    writeFileSync(join(env.dir, "pipeline.yaml"), PIPELINE);
    env.dlp(["submit", "--wait", join(env.dir, "pipeline.yaml")]);
    const { pipelines } = JSON.parse(env.dlp(["pipeline", "list", "-o", "json"]));
    ids.pipeline = pipelines.at(-1).id;
    const status = JSON.parse(env.dlp(["pipeline", "status", ids.pipeline, "-o", "json"]));
    await page.goto(`${base}/pipelines/${ids.pipeline}`);
    await waitWithoutError(page, "[data-test=dag] .dag-node");
    const shown = Object.fromEntries(await page.$$eval(".dag-node", (ns) => ns.map((n) => [n.dataset.node, n.dataset.state])));
    const want = Object.fromEntries(status.jobs.map((j) => [j.name, j.name === "report-failure" ? "Skipped" : j.state]));
    assert.deepEqual(shown, { prep: "Succeeded", train: "Succeeded", eval: "Succeeded", "report-failure": "Skipped" });
    assert.deepEqual(shown, want);
    assert.equal(await page.$$eval(".dag-edge[data-from]", (es) => es.length), 3);
    assert.equal(await page.$eval('.dag-node[data-node=train] a', (a) => a.getAttribute("href")), `/jobs/${status.jobs.find((j) => j.name === "train").job}`);
    await steps.shot(page, "pipeline");
  });

  await steps.step("a model's download and a job's artifacts match their SHA-256", async () => {
    ids.writer = env.submit("writer", [
      'head -c 200000 /dev/urandom > "$DLP_OUTPUT_DIR/model.bin"',
      'mkdir -p "$DLP_OUTPUT_DIR/sub" && echo notes > "$DLP_OUTPUT_DIR/sub/notes.txt"',
      'ln -s /etc/passwd "$DLP_OUTPUT_DIR/escape"',
      "echo DLP_METRIC accuracy=0.93 step=1",
    ].join("\n"));
    env.dlp(["wait", ids.writer]);
    env.dlp(["model", "register", "classifier", "--job", ids.writer, "--path", "model.bin", "--alias", "staging"]);
    const cli = JSON.parse(env.dlp(["model", "show", "classifier", "-o", "json"]));
    await page.goto(`${base}/models`);
    await waitWithoutError(page, '[data-test=models] tr[data-model="classifier:1"]');
    await page.goto(`${base}/models/classifier%401`.replace("%401", "@staging"));
    await waitWithoutError(page, "[data-test=sha256]");
    assert.equal(await page.$eval("[data-test=sha256]", (c) => c.textContent), cli.sha256);
    const href = await page.$eval("[data-test=download]", (a) => a.getAttribute("href"));
    assert.equal(await sha256In(page, href), cli.sha256);
    assert.equal(await page.$eval("[data-test=model-metrics] td[data-value]", (td) => td.getAttribute("data-value")), "0.93");
    await steps.shot(page, "model");
    await page.goto(`${base}/jobs/${ids.writer}`);
    await waitWithoutError(page, "[data-test=artifacts] tr[data-artifact]");
    const listed = await page.$$eval("[data-test=artifacts] tr[data-artifact]", (rs) => rs.map((r) => r.dataset.artifact));
    assert.deepEqual(listed.sort(), ["model.bin", "sub/notes.txt"]); // the link is left out
    const { artifacts } = await page.evaluate(async (id) => (await fetch(`/v1/jobs/${id}/artifacts`)).json(), ids.writer);
    for (const a of artifacts) {
      const link = await page.$eval(`tr[data-artifact="${a.path}"] a`, (el) => el.getAttribute("href"));
      assert.equal(await sha256In(page, link), a.sha256, a.path);
    }
    ids.artifactUrl = `/v1/jobs/${ids.writer}/artifacts/model.bin`;
  });

  await steps.step("artifact paths cannot leave the job's folder", async () => {
    const status = (p) => page.evaluate(async (u) => (await fetch(u)).status, p);
    const job = `/v1/jobs/${ids.writer}/artifacts`;
    assert.equal(await status(`${job}/escape`), 404); // a symbolic link
    for (const p of ["%2e%2e/%2e%2e/etc/passwd", "sub/%2e%2e/%2e%2e/x", "..%2f..%2fetc%2fpasswd", "%2fetc%2fpasswd", "sub//notes.txt"]) {
      const got = await status(`${job}/${p}`);
      assert.ok(got === 400 || got === 404, `${p}: ${got}`);
    }
    assert.equal(await status(`${job}?path=..`), 400);
  });

  await steps.step("another tenant sees none of the runs, sweeps, pipelines, models or artifacts (404)", async () => {
    env.dlp(["admin", "tenant", "create", "bob", "--user", "nobody"]);
    const token = env.dlp(["admin", "token", "create", "bob"]).trim();
    const bob = await newPage(await browser.createBrowserContext());
    await bob.goto(`${base}/login`);
    await bob.waitForSelector("input[name=token]");
    await bob.type("input[name=token]", token);
    await Promise.all([bob.waitForNavigation(), bob.$eval("input[name=token]", (i) => i.form.requestSubmit())]);
    await bob.waitForSelector("[data-test=tenant]");
    const get = (u) => bob.evaluate(async (x) => { const r = await fetch(x); return { status: r.status, body: await r.text() }; }, u);
    const trial = ids.status.trials[0].job;
    for (const u of [`/v1/sweeps/${ids.sweep}`, `/v1/pipelines/${ids.pipeline}`, "/v1/models/classifier", "/v1/models/classifier/file",
      `/v1/jobs/${ids.writer}/artifacts`, ids.artifactUrl, `/v1/jobs/${trial}`]) {
      assert.equal((await get(u)).status, 404, u);
    }
    const runs = JSON.parse((await get("/v1/jobs?columns=metric.score,param.lr&sort=-metric.score")).body);
    assert.equal(runs.total, 0);
    assert.deepEqual(JSON.parse((await get("/v1/sweeps")).body).sweeps, []);
    assert.deepEqual(JSON.parse((await get("/v1/models")).body).models, []);
    for (const path of [`/sweeps/${ids.sweep}`, `/pipelines/${ids.pipeline}`, "/models/classifier"]) {
      await bob.goto(`${base}${path}`);
      await bob.waitForSelector("[data-test=not-found]");
    }
    await bob.goto(`${base}/jobs?columns=metric.score`);
    await bob.waitForFunction(() => document.querySelector("[data-test=run-count]")?.textContent === "0 runs");
  });

  await steps.step("the first load stays under 300 KB compressed", async () => {
    const html = await (await fetch(`${base}/`)).text();
    const assets = [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.equal(assets.length, 2, html);
    let total = 0;
    for (const path of ["/", ...assets]) {
      const { n, encoding } = await gzipBytes(`${base}${path}`);
      if (path !== "/") assert.equal(encoding, "gzip", path);
      total += n;
    }
    console.log(`  first load: ${(total / 1024).toFixed(1)} KiB compressed`);
    assert.ok(total < FIRST_LOAD_BUDGET, `${total} bytes`);
  });

  await steps.step("the usage page shows the CPUs running jobs hold, by queue and tenant", async () => {
    ids.hold = env.submit("hold", `while [ ! -e ${env.work("hold-go")} ]; do sleep 0.05; done`, { count: 2, cpu: "500m" });
    const tenant = env.status(ids.hold).tenant;
    await page.goto(`${base}/usage`);
    const row = `[data-test=in-use] tr[data-queue=default][data-tenant="${tenant}"]`;
    await page.waitForSelector(row);
    assert.equal(await page.$eval(`${row} [data-test=cpu]`, (td) => td.textContent), "1");
    // The history counts the jobs that ran before (the sweep's, the pipeline's) too.
    const history = await page.evaluate(async () => (await fetch("/v1/usage/history?hours=1")).json());
    const mine = history.tenants.find((t) => t.tenant === tenant);
    assert.equal(mine.cpuHours.length, 48);
    assert.ok(mine.cpuHours.reduce((a, b) => a + b, 0) > 0);
    await page.waitForSelector(`[data-test=tenant-history] tr[data-tenant="${tenant}"] canvas`);
    await steps.shot(page, "usage");
  });

  await steps.step("the pages fit an 800 px window", async () => {
    const narrow = await newPage(page.browserContext(), 800);
    for (const [path, ready, name] of [
      [`/jobs?columns=param.lr,metric.score&where=label.dlp.dev/sweep=${ids.sweep}`, ".run-row[data-job]", "runs-800"],
      [`/sweeps/${ids.sweep}`, "[data-test=parallel]", "sweep-800"],
      [`/pipelines/${ids.pipeline}`, ".dag-node", "pipeline-800"],
      ["/models/classifier", "[data-test=sha256]", "model-800"],
      ["/usage", "[data-test=queues]", "usage-800"],
      ["/jobs", ".job-row", "jobs-800"],
    ]) {
      await narrow.goto(`${base}${path}`);
      await waitWithoutError(narrow, ready);
      const width = await narrow.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 800, `${path} is ${width} px wide`);
      await steps.shot(narrow, name);
    }
    const signIn = await newPage(await browser.createBrowserContext(), 800);
    await signIn.goto(`${base}/login`);
    await signIn.waitForSelector("input[name=token]");
    assert.ok(await signIn.evaluate(() => document.documentElement.scrollWidth) <= 800);
    // Styled by /login.css, as the dashboard.
    assert.equal(await signIn.$eval("form", (f) => getComputedStyle(f).backgroundColor), "rgb(255, 255, 255)");
    await steps.shot(signIn, "login-800");
    env.touch("hold-go");
    env.dlp(["wait", ids.hold]);
  });
} catch (e) {
  steps.results.push(["setup", "FAILED"]);
  console.log(`FAIL setup: ${e?.stack ?? e}`);
} finally {
  await browser?.close();
  env.stop();
}

const failed = steps.failed();
console.log(`${steps.results.length - failed.length} of ${steps.results.length} passed; screenshots in ${steps.artefacts}`);
process.exit(failed.length ? 1 : 0);
