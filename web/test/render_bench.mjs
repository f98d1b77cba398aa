// How fast the built pages draw big inputs, in headless Chromium with no
// dlpd: a local HTTP server answers from web/dist (under dlpd's CSP) and with
// generated data (10,000 jobs for the Jobs page; 100,000 log lines for a Job
// page). Prints the figures; asserts only what was drawn, never a time.
//
// usage: node web/test/render_bench.mjs   (after npm run build; SHOTS=DIR saves screenshots)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const dist = fileURLToPath(new URL("../dist", import.meta.url));
const JOBS = 10_000;
const LINES = 100_000;

function job(i) {
  const state = ["Running", "Succeeded", "Failed", "Queued", "Cancelled"][i % 5];
  const t = new Date(Date.UTC(2026, 10, 30, 12) + i * 1000).toISOString();
  return {
    id: String(i), name: `job-${i}`, tenant: "@owner", queue: "default", state, reason: "",
    created: t, started: state === "Queued" ? null : t, finished: null, exitCode: null, restartCount: 0,
    spec: { name: `job-${i}`, replicas: [{ role: "worker", count: 2 }] },
    replicas: state === "Queued" ? [] : [0, 1].map((r) => ({ name: `worker-${r}`, role: "worker", index: r, state, exitCode: null, signal: null })),
  };
}

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function respond(req, res) {
  const url = new URL(req.url, "http://x");
  const p = url.pathname;
  const send = ({ status, contentType, body }) => {
    res.writeHead(status, { "Content-Type": contentType, "Content-Security-Policy": CSP });
    res.end(body);
  };
  req.respond = send;
  const json = (body) => send({ status: 200, contentType: "application/json", body: JSON.stringify(body) });
  if (p === "/v1/ui/session") return json({ tenant: "@owner", admin: true, csrf: "x" });
  if (p === "/v1/jobs") {
    const before = Number(url.searchParams.get("before") ?? JOBS + 1);
    const limit = Number(url.searchParams.get("limit") ?? JOBS);
    const jobs = [];
    for (let i = Math.max(1, before - limit); i < before; i++) jobs.push(job(i));
    return json({ jobs });
  }
  if (p === "/v1/jobs/1") return json({ ...job(1), state: "Succeeded", finished: job(1).created });
  if (p === "/v1/jobs/1/events") return json({ events: [] });
  if (p === "/v1/jobs/1/logs") {
    let body = "";
    for (let i = 0; i < LINES; i++) {
      body += JSON.stringify({ replica: `worker-${i % 2}`, stream: "stdout", time: "2026-11-30T12:00:00Z", text: `\u001b[32mstep ${i}\u001b[0m loss=${(1 / (i + 1)).toFixed(6)}` }) + "\n";
    }
    return req.respond({ status: 200, contentType: "application/x-ndjson", body });
  }
  if (p.startsWith("/assets/")) {
    const type = p.endsWith(".js") ? "text/javascript" : "text/css";
    return req.respond({ status: 200, contentType: type, body: readFileSync(join(dist, p)) });
  }
  return req.respond({ status: 200, contentType: "text/html", body: readFileSync(join(dist, "index.html")) });
}

const server = createServer(respond);
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const BASE = `http://127.0.0.1:${server.address().port}`;
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  page.on("pageerror", (e) => console.log(`page error: ${e.message}`));

  // Jobs: from navigation to the list's first paint with every job.
  await page.goto(`${BASE}/jobs`);
  await page.waitForFunction((n) => document.querySelector("[data-test=job-count]")?.textContent === `${n} jobs`, { timeout: 60_000 }, JOBS);
  const jobs = await page.evaluate(async () => {
    const nav = performance.getEntriesByType("navigation")[0];
    const shown = performance.now() - nav.startTime;
    const fetched = Math.max(...performance.getEntriesByType("resource").filter((r) => r.name.includes("/v1/jobs")).map((r) => r.responseEnd));
    // Filtering and drawing all of them again, as typing in the search box does.
    const search = document.querySelector("input[name=search]");
    const t0 = performance.now();
    search.value = "job-";
    search.dispatchEvent(new Event("input"));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const redraw = performance.now() - t0;
    return { shown, lastResponse: fetched - nav.startTime, redraw, rows: document.querySelectorAll(".job-row").length };
  });
  assert.ok(jobs.rows > 0 && jobs.rows < 200, `rows in the DOM: ${jobs.rows}`);
  // Scrolling through: frames while jumping to 20 places.
  const scroll = await page.evaluate(async () => {
    const list = document.querySelector(".jobs-list");
    const t0 = performance.now();
    for (let i = 1; i <= 20; i++) {
      list.scrollTop = (list.scrollHeight * i) / 20;
      await new Promise((r) => requestAnimationFrame(() => r()));
    }
    return (performance.now() - t0) / 20;
  });
  if (process.env.SHOTS) await page.screenshot({ path: join(process.env.SHOTS, "bench-jobs.png") });
  console.log(`jobs page: ${JOBS} jobs shown ${jobs.shown.toFixed(0)} ms after navigation start ` +
    `(last page received at ${jobs.lastResponse.toFixed(0)} ms), search over all of them and redraw ${jobs.redraw.toFixed(0)} ms, ` +
    `${jobs.rows} rows in the DOM, ${scroll.toFixed(1)} ms a scroll frame`);

  // Logs: 100,000 lines received and drawn, then scrolling.
  await page.goto(`${BASE}/jobs/1`);
  await page.waitForFunction((n) => document.querySelector("[data-test=log-view]")?.getAttribute("data-lines") === String(n), { timeout: 120_000 }, LINES);
  const logs = await page.evaluate(async () => {
    const nav = performance.getEntriesByType("navigation")[0];
    const shown = performance.now() - nav.startTime;
    const view = document.querySelector("[data-test=log-view]");
    const t0 = performance.now();
    for (let i = 0; i <= 20; i++) {
      view.scrollTop = (view.scrollHeight * i) / 20;
      await new Promise((r) => requestAnimationFrame(() => r()));
    }
    return { shown, frame: (performance.now() - t0) / 21, rows: view.querySelectorAll(".log-line").length };
  });
  assert.ok(logs.rows > 0 && logs.rows < 400, `log rows in the DOM: ${logs.rows}`);
  if (process.env.SHOTS) await page.screenshot({ path: join(process.env.SHOTS, "bench-job.png") });
  console.log(`job page: ${LINES} log lines shown ${logs.shown.toFixed(0)} ms after navigation start, ${logs.rows} rows in the DOM, ${logs.frame.toFixed(1)} ms a scroll frame`);
} finally {
  await browser.close();
  server.close();
}
