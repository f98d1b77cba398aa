// What the browser tests share: named steps that record their outcome and
// leave a screenshot of every open page when they fail, pages with the
// tests' timeout and viewport, screenshots, and waits on what a page shows.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import puppeteer from "puppeteer-core";

export const TIMEOUT = 90_000;

export class Steps {
  constructor(artefacts) {
    this.artefacts = artefacts;
    this.results = [];
    this.browser = null;
    mkdirSync(artefacts, { recursive: true });
  }

  async step(name, fn) {
    const t0 = Date.now();
    try {
      await fn();
      this.results.push([name, "ok"]);
      console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (e) {
      this.results.push([name, "FAILED"]);
      console.log(`FAIL ${name}: ${e?.stack ?? e}`);
      // What each open page showed, for the artefacts.
      const pages = this.browser ? await this.browser.pages().catch(() => []) : [];
      for (const [i, p] of pages.entries()) {
        await p.screenshot({ path: join(this.artefacts, `failed-${this.results.length}-${i}.png`) }).catch(() => {});
        console.log(`  page ${i}: ${p.url()} (failed-${this.results.length}-${i}.png)`);
      }
    }
  }

  // Debian's headless Chromium (CHROMIUM to use another); failures screenshot its pages.
  async launch() {
    this.browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
    });
    return this.browser;
  }

  shot(page, name) {
    return page.screenshot({ path: join(this.artefacts, `${name}.png`), fullPage: false });
  }

  failed() {
    return this.results.filter(([, r]) => r !== "ok");
  }
}

export async function newPage(context, width = 1400) {
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  await page.setViewport({ width, height: 900 });
  page.on("pageerror", (e) => console.log(`  page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && console.log(`  console: ${m.text()}`));
  return page;
}

export const text = (page, sel) => page.$eval(sel, (el) => el.textContent);
export const pathOf = (page) => new URL(page.url()).pathname;

// The text of every error note on the page (errorNote in src/widgets.ts).
export const errorsShown = (page) => page.$$eval("[role=alert]", (es) => es.map((e) => e.textContent));

// Waits until `selector` matches or an error note shows, then asserts that none does.
export async function waitWithoutError(page, selector) {
  await page.waitForFunction((sel) => document.querySelector(sel) || document.querySelector("[role=alert]"), {}, selector);
  assert.deepEqual(await errorsShown(page), [], `an error note on ${page.url()}`);
}

// Calls `probe` until it returns a value other than undefined/false, at most `ms`.
export async function waitFor(what, probe, ms = TIMEOUT) {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined && got !== false) return got;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200)); // between probes of a condition, not a synchronisation
  }
}
