// The Jobs page against a real dlpd that holds many jobs (bench/ui/
// jobs_page.sh fills one): signs in with a one-time code, loads /jobs LOADS
// times in headless Chromium and prints, per load and as medians, when the
// first rows were drawn and when the table was drawn with every job counted,
// in ms after navigation start. The page itself notes the moments (a
// MutationObserver installed before its scripts run), so polling from here
// adds nothing. Asserts only what was drawn, never a time.
//
// With VIEW=runs, the runs table instead: /jobs with two metric columns,
// sorted by one (dlpd sorts; the page fetches the rows in view), until its
// first rows are drawn and it counts every job.
//
// usage: [VIEW=runs] node web/test/jobs_page_bench.mjs BASE_URL OWNER_TOKEN JOBS [LOADS]
import assert from "node:assert/strict";
import puppeteer from "puppeteer-core";

const [base, token, jobsArg, loadsArg] = process.argv.slice(2);
const JOBS = Number(jobsArg);
const LOADS = Number(loadsArg ?? 7);
const RUNS = process.env.VIEW === "runs";
const PATH = RUNS ? "/jobs?columns=metric.loss,metric.accuracy&sort=-metric.accuracy" : "/jobs";
const COUNT = RUNS ? { sel: "[data-test=run-count]", noun: "runs" } : { sel: "[data-test=job-count]", noun: "jobs" };
if (!base || !token || !JOBS) {
  console.error("usage: node web/test/jobs_page_bench.mjs BASE_URL OWNER_TOKEN JOBS [LOADS]");
  process.exit(2);
}

const res = await fetch(`${base}/v1/ui/codes`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
assert.equal(res.status, 201, `POST /v1/ui/codes: ${res.status}`);
const { code } = await res.json();

// Runs in the page before its scripts: notes the first row and the moment
// the count says every job, as performance.now() (ms from navigation start).
function watch(jobs, { sel, noun }) {
  window.__bench = {};
  new MutationObserver(() => {
    const b = window.__bench;
    if (b.firstRows === undefined && document.querySelector(".job-row")) b.firstRows = performance.now();
    const count = document.querySelector(sel)?.textContent;
    if (b.all === undefined && count === `${jobs} ${noun}` && document.querySelector(".job-row")) b.all = performance.now();
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
});
try {
  const signIn = await browser.newPage();
  await signIn.goto(`${base}/login?code=${encodeURIComponent(code)}`);
  await signIn.waitForSelector("[data-test=tenant]");
  await signIn.close();
  const loads = [];
  for (let i = 0; i < LOADS; i++) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    page.on("pageerror", (e) => console.log(`page error: ${e.message}`));
    await page.evaluateOnNewDocument(watch, JOBS, COUNT);
    await page.goto(`${base}${PATH}`);
    await page.waitForFunction(() => window.__bench?.all !== undefined, { timeout: 120_000 }).catch(async (e) => {
      const shown = await page.$eval(COUNT.sel, (el) => el.textContent).catch(() => "no count");
      throw new Error(`the page did not count ${JOBS} jobs (it says "${shown}"): ${e.message}`);
    });
    const t = await page.evaluate(() => ({
      ...window.__bench,
      rows: document.querySelectorAll(".job-row").length,
      requests: performance.getEntriesByType("resource").filter((r) => r.name.includes("/v1/jobs")).length,
    }));
    assert.ok(t.rows > 0 && t.rows < 200, `rows in the DOM: ${t.rows}`);
    console.log(`load ${i + 1}: first rows ${t.firstRows.toFixed(0)} ms, all ${JOBS} jobs ${t.all.toFixed(0)} ms ` +
      `(${t.requests} requests to /v1/jobs, ${t.rows} rows in the DOM)`);
    loads.push(t);
    await page.close();
  }
  console.log(`${RUNS ? `runs table (${PATH})` : "jobs page"}, ${JOBS} jobs, median of ${LOADS} loads: first rows ${median(loads.map((l) => l.firstRows)).toFixed(0)} ms, ` +
    `table with every job ${median(loads.map((l) => l.all)).toFixed(0)} ms after navigation start`);
} finally {
  await browser.close();
}
