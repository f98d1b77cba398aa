// The dashboard in a real browser (Debian's headless Chromium through
// puppeteer-core) against a real dlpd with real jobs: signing in, the jobs
// list following a job from Running to Succeeded, live logs, cancelling from
// the page, metrics against `dlp metrics -o json`, the timeline of a 2-rank
// fmnist-train, usage, signing out, and the security properties (sign-in required, tenant
// isolation, log text never executes, CSRF, CSP); on a second dlpd with
// `--gpus 2`, the pages of a whole-GPU and a half-GPU job. Screenshots of every
// page go to BUILD_DIR/test-artifacts/web/.
//
// usage: node web/test/browser.mjs BUILD_DIR   (ctest: web_browser)
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DlpEnv } from "./lib/dlp_env.mjs";
import { Steps, newPage, pathOf, text, waitWithoutError } from "./lib/steps.mjs";

const build = resolve(process.argv[2] ?? "build");
const artefacts = join(build, "test-artifacts/web");
const steps = new Steps(artefacts);
const step = (name, fn) => steps.step(name, fn);
const shot = (page, name) => steps.shot(page, name);
const results = steps.results;
const env = new DlpEnv(build);
// GPUs by count, without NVML: dlpd places replicas on devices "0" and "1".
const gpuEnv = new DlpEnv(build, { dlpdArgs: ["--gpus", "2"] });

// The value of a fact in the job page's header ("GPU sharing"); null when absent.
const fact = (page, name) => page.$$eval(".facts dt",
  (dts, n) => dts.find((dt) => dt.textContent === n)?.nextElementSibling.textContent ?? null, name);

// Waits until a log row containing `needle` is in the (virtual) log view.
function waitForLogLine(page, needle) {
  return page.waitForFunction(
    (n) => [...document.querySelectorAll("[data-test=log-view] .log-line")].some((r) => r.textContent.includes(n)),
    {}, needle);
}

let browser;
try {
  const base = env.start();
  browser = await steps.launch();
  const owner = await browser.createBrowserContext();
  const page = await newPage(owner);
  const ids = {};
  let gpuBase, gpuPage;

  await step("without a session: the sign-in page, 401 from the API, a restrictive CSP", async () => {
    const anon = await browser.createBrowserContext();
    const p = await newPage(anon);
    const res = await p.goto(`${base}/`);
    const csp = res.headers()["content-security-policy"] ?? "";
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    await p.waitForFunction(() => location.pathname === "/login");
    assert.equal(await p.evaluate(async () => (await fetch("/v1/jobs")).status), 401);
    assert.equal(await p.evaluate(async () => (await fetch("/v1/ui/session")).status), 401);
    await shot(p, "login");
    await anon.close();
  });

  await step("sign in with dlp ui's one-time code", async () => {
    const url = await env.signInUrl();
    assert.ok(url.startsWith(base), `${url} is not on ${base}`);
    await page.goto(url);
    await page.waitForSelector("[data-test=tenant]");
    assert.equal(pathOf(page), "/");
    assert.ok(!page.url().includes("code="));
    assert.equal(await page.evaluate(() => localStorage.length + sessionStorage.length), 0);
    const cookies = await page.cookies();
    assert.ok(cookies.length > 0 && cookies.every((c) => c.httpOnly), JSON.stringify(cookies));
    assert.equal(await page.evaluate(() => document.cookie), "");
  });

  await step("a running job appears in the list and finishes; its logs follow live", async () => {
    await page.goto(`${base}/jobs`);
    await page.waitForSelector("[data-test=job-count]");
    const go = env.work("logs-go");
    ids.logs = env.submit("live-logs", [
      "echo hello from rank $RANK",
      "printf '\\033[31mred text\\033[0m plain\\n'",
      "echo '<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">'",
      `while [ ! -e ${go} ]; do sleep 0.05; done`,
      "echo goodbye after the go file",
    ].join("\n"), { count: 2 });
    await page.waitForSelector(`.job-row[data-job="${ids.logs}"][data-state="Running"]`);
    await shot(page, "jobs");
    await page.click(`.job-row[data-job="${ids.logs}"] a`);
    await page.waitForSelector("[data-test=log-view]");
    await waitForLogLine(page, "hello from rank 1");
    await waitForLogLine(page, "red text");
    const red = await page.evaluate(() => [...document.querySelectorAll(".log-line span.fg1")].map((s) => s.textContent));
    assert.ok(red.includes("red text"), `red spans: ${red}`);
    // Only now does the job print its last line: it must arrive on the open stream.
    env.touch("logs-go");
    await waitForLogLine(page, "goodbye after the go file");
    await page.waitForFunction(() => document.querySelector("[data-test=job-state]")?.textContent === "Succeeded");
    await page.waitForFunction(() => document.querySelector(".log-panel")?.getAttribute("data-stream") === "ended");
    const replicas = await text(page, "[data-test=replicas]");
    assert.match(replicas, /worker-0/);
    assert.match(replicas, /worker-1/);
    assert.match(await text(page, "[data-test=spec]"), /replicas:/);
    await shot(page, "job");
    await page.goto(`${base}/jobs`);
    await page.waitForSelector(`.job-row[data-job="${ids.logs}"][data-state="Succeeded"]`);
    assert.equal(env.status(ids.logs).state, "Succeeded");
  });

  await step("a log line with <script> is shown as text and nothing runs", async () => {
    await page.goto(`${base}/jobs/${ids.logs}`);
    await waitForLogLine(page, "<script>window.__pwned = 1</script>");
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.evaluate(() => document.querySelectorAll("[data-test=log-view] script, [data-test=log-view] img").length), 0);
  });

  await step("an elastic job's page shows its size within its range and its resizes", async () => {
    const go = env.work("elastic-go");
    ids.elastic = env.submit("elastic", `while [ ! -e ${go} ]; do sleep 0.05; done`,
      { count: 2, extra: "      minCount: 1\n" });
    await page.goto(`${base}/jobs/${ids.elastic}`);
    await page.waitForFunction(() => document.querySelector("[data-test=job-state]")?.textContent === "Running");
    const size = env.status(ids.elastic).size;
    assert.equal(await fact(page, "size"), `${size} (1-2)`);
    assert.equal(await fact(page, "resizes"), "0");
    await shot(page, "job-elastic");
    env.touch("elastic-go");
    env.dlp(["wait", ids.elastic], { check: false });
    assert.equal(env.status(ids.elastic).state, "Succeeded");
  });

  await step("usage of a running job, then cancel it from the page: dlp says Cancelled", async () => {
    ids.hold = env.submit("hold", `while [ ! -e ${env.work("never")} ]; do sleep 0.05; done`);
    await page.goto(`${base}/usage`);
    await page.waitForSelector(`tr[data-replica="${ids.hold}/worker-0"]`);
    await page.waitForSelector("[data-test=queues] tbody tr");
    await shot(page, "usage");
    await page.goto(`${base}/jobs`);
    const row = `.job-row[data-job="${ids.hold}"]`;
    await page.waitForSelector(`${row}[data-state="Running"]`);
    await page.click(`${row} [data-test=cancel]`);
    await page.waitForSelector("dialog[open] [data-test=confirm-cancel]");
    await shot(page, "cancel-confirm");
    await page.click("dialog[open] [data-test=confirm-cancel]");
    env.dlp(["wait", ids.hold], { check: false });
    assert.equal(env.status(ids.hold).state, "Cancelled");
    await page.waitForSelector(`${row}[data-state="Cancelled"]`);
  });

  await step("a state-changing call without the CSRF header is refused", async () => {
    const id = env.submit("csrf", `while [ ! -e ${env.work("csrf-go")} ]; do sleep 0.05; done`);
    const status = await page.evaluate(async (i) => (await fetch(`/v1/jobs/${i}/cancel`, { method: "POST" })).status, id);
    assert.equal(status, 403);
    assert.notEqual(env.status(id).state, "Cancelled");
    env.touch("csrf-go");
    env.dlp(["wait", id], { check: false });
  });

  await step("live updates patch the jobs list: a new job's row appears, the other rows stay", async () => {
    await page.goto(`${base}/jobs`);
    const kept = `.job-row[data-job="${ids.logs}"]`;
    await page.waitForSelector(kept);
    await page.$eval(kept, (el) => (el.dataset.mark = "kept"));
    const id = env.submit("patched", "exit 0");
    await page.waitForSelector(`.job-row[data-job="${id}"][data-state="Succeeded"]`);
    // The same element, moved down a row, not one drawn again.
    assert.equal(await page.$eval(kept, (el) => el.dataset.mark), "kept");
  });

  await step("a tenant's session cannot open the owner's job (404)", async () => {
    env.dlp(["admin", "tenant", "create", "bob", "--user", "nobody"]); // an account every host has
    const token = env.dlp(["admin", "token", "create", "bob"]).trim();
    const bob = await browser.createBrowserContext();
    const p = await newPage(bob);
    await p.goto(`${base}/login`);
    await p.waitForSelector("input[name=token]");
    await p.type("input[name=token]", token);
    await Promise.all([p.waitForNavigation(), p.$eval("input[name=token]", (i) => i.form.requestSubmit())]);
    await p.waitForSelector("[data-test=tenant]");
    assert.equal(await text(p, "[data-test=tenant]"), "bob");
    await p.goto(`${base}/jobs/${ids.logs}`);
    await p.waitForSelector("[data-test=not-found]");
    await shot(p, "not-found");
    assert.equal(await p.evaluate(async (i) => (await fetch(`/v1/jobs/${i}/logs`)).status, ids.logs), 404);
    await p.goto(`${base}/jobs`);
    await p.waitForSelector("[data-test=job-count]");
    assert.equal(await p.$(`.job-row[data-job="${ids.logs}"]`), null);
    await bob.close();
  });

  await step("metrics of a 2-rank fmnist-train match dlp metrics -o json", async () => {
    const train = [join(env.bin, "fmnist-train"), "--limit-train", "4096", "--limit-test", "256",
      "--epochs", "2", "--batch", "64", "--device", "cpu"].join(" ");
    ids.train = env.submit("fmnist", `exec ${train}`, { count: 2, cpu: "500m" });
    env.dlp(["wait", ids.train]);
    const cli = JSON.parse(env.dlp(["metrics", ids.train, "-o", "json"])).metrics;
    const last = new Map();
    for (const p of cli) last.set(`${p.name}\u0000${p.replica}`, p);
    assert.ok(last.size > 0, "dlp metrics found no points");
    // Every replica's series (the page's default is rank 0's, as dlp metrics --plot).
    await page.goto(`${base}/charts?jobs=${ids.train}&replicas=each`);
    await page.waitForSelector("figure.chart");
    for (const [key, p] of last) {
      const [name, replica] = key.split("\u0000");
      const sel = `figure[data-metric="${name}"] tr[data-series="${replica}"] [data-test=last-value]`;
      const value = await page.$eval(sel, (el) => el.getAttribute("data-value"));
      assert.equal(Number(value), p.value === null ? NaN : p.value, `${name} of ${replica}`);
    }
    await shot(page, "metrics");
    // The training job's own page (the README's screenshot, docs/images/ui-job.png).
    await page.goto(`${base}/jobs/${ids.train}`);
    await page.waitForFunction(() => document.querySelector(".log-panel")?.getAttribute("data-stream") === "ended");
    await waitForLogLine(page, "test_accuracy");
    assert.equal(await page.evaluate(() => document.querySelector("[data-test=log-view]").textContent.includes("DLP_METRIC")), false);
    await page.click("[data-test=log-metrics]"); // metric lines too, as dlp logs --metrics
    await waitForLogLine(page, "DLP_METRIC loss=");
    await shot(page, "job-train");
  });

  await step("the timeline of the training job has one row per rank", async () => {
    await page.goto(`${base}/jobs/${ids.train}/timeline`);
    await page.waitForSelector("[data-test=timeline-row]");
    const ranks = await page.$$eval("[data-test=timeline-row]", (rs) => rs.map((r) => r.getAttribute("data-rank")));
    assert.deepEqual(ranks, ["0", "1"]);
    assert.ok((await text(page, "[data-test=straggler]")).length > 0);
    assert.equal(await page.$$eval("[data-test=rank-summary] tbody tr", (rs) => rs.length), 2);
    // The download is dlpd's merged trace: one process per rank.
    const pids = await page.$eval("[data-test=download-trace]", async (a) => {
      const doc = await (await fetch(a.href)).json();
      return doc.traceEvents.filter((e) => e.name === "process_name").map((e) => e.pid);
    });
    assert.deepEqual(pids, [0, 1]);
    await shot(page, "timeline");
  });

  await step("a dlpd with --gpus 2 runs a whole-GPU and a half-GPU job", async () => {
    gpuBase = gpuEnv.start();
    // Its own browser context: both dlpds are on 127.0.0.1, where cookies ignore the port.
    gpuPage = await newPage(await browser.createBrowserContext());
    await gpuPage.goto(await gpuEnv.signInUrl());
    await gpuPage.waitForSelector("[data-test=tenant]");
    const script = ["echo DLP_METRIC loss=0.5 step=1", `while [ ! -e ${gpuEnv.work("gpu-go")} ]; do sleep 0.05; done`].join("\n");
    ids.gpu = { whole: gpuEnv.submit("whole-gpu", script, { gpu: 1 }), half: gpuEnv.submit("half-gpu", script, { gpu: 0.5 }) };
  });

  for (const [kind, shape] of [["whole", /^[01]$/], ["half", /^[01] \(0\.5\)$/]]) {
    await step(`the ${kind}-GPU job's page shows its device; its metrics and timeline open`, async () => {
      const id = ids.gpu[kind];
      await gpuPage.goto(`${gpuBase}/jobs/${id}`);
      // Placed once it runs; the page redraws every 2 s until then.
      await waitWithoutError(gpuPage, "[data-test=replica-gpus]:not(:empty)");
      const status = gpuEnv.status(id);
      const shown = await text(gpuPage, "[data-test=replica-gpus]");
      assert.match(shown, shape);
      // The wire's one form, {device, millis}, as the page words it.
      const [share, ...more] = status.replicas[0].gpus;
      assert.equal(more.length, 0);
      assert.equal(share.millis, kind === "whole" ? 1000 : 500);
      assert.equal(shown, kind === "whole" ? share.device : `${share.device} (0.5)`);
      assert.equal(await fact(gpuPage, "GPU sharing"), status.gpuSharing ?? null);
      assert.equal(status.gpuSharing === undefined, kind === "whole");
      await shot(gpuPage, `job-gpu-${kind}`);
      await gpuPage.goto(`${gpuBase}/charts?jobs=${id}`);
      await waitWithoutError(gpuPage, `figure[data-metric="loss"]`);
      await gpuPage.goto(`${gpuBase}/jobs/${id}/timeline`);
      await waitWithoutError(gpuPage, "[data-test=no-trace]");
      await gpuPage.goto(`${gpuBase}/jobs/${id}`);
      await waitWithoutError(gpuPage, "[data-test=replica-gpus]:not(:empty)");
    });
  }

  await step("the GPU jobs succeed once let go", async () => {
    gpuEnv.touch("gpu-go");
    for (const id of Object.values(ids.gpu)) {
      gpuEnv.dlp(["wait", id]);
      assert.equal(gpuEnv.status(id).state, "Succeeded");
    }
  });

  await step("sign out: the session ends, the cookie is cleared and the old cookie gets 401", async () => {
    const ctx = await browser.createBrowserContext();
    const p = await newPage(ctx);
    await p.goto(await env.signInUrl());
    await p.waitForSelector("[data-test=sign-out]");
    const [cookie] = (await p.cookies()).filter((c) => c.name === "dlp_session");
    assert.ok(cookie?.value, "no session cookie");
    const old = { headers: { Cookie: `dlp_session=${cookie.value}` } };
    assert.equal((await fetch(`${base}/v1/jobs?limit=1`, old)).status, 200);
    await p.goto(`${base}/usage`); // the button is on every page, drawn once the session loads
    await p.waitForSelector("[data-test=sign-out]");
    await Promise.all([p.waitForNavigation(), p.click("[data-test=sign-out]")]);
    assert.equal(pathOf(p), "/login");
    assert.deepEqual((await p.cookies()).filter((c) => c.name === "dlp_session"), []);
    assert.equal((await fetch(`${base}/v1/jobs?limit=1`, old)).status, 401);
    assert.equal((await fetch(`${base}/v1/ui/session`, old)).status, 401);
    await ctx.close();
  });
} catch (e) {
  results.push(["setup", "FAILED"]);
  console.log(`FAIL setup: ${e?.stack ?? e}`);
} finally {
  await browser?.close();
  for (const e of [env, gpuEnv]) {
    const log = join(e.stateDir(), "dlpd.log");
    if (results.some(([, r]) => r !== "ok") && existsSync(log)) {
      console.log(`--- the end of ${log}:\n${readFileSync(log, "utf8").split("\n").slice(-40).join("\n")}`);
    }
    e.stop();
  }
}

const failed = results.filter(([, r]) => r !== "ok");
console.log(`${results.length - failed.length} of ${results.length} passed; screenshots in ${artefacts}`);
process.exit(failed.length ? 1 : 0);
