// Retakes the README's screenshot (docs/images/ui-job.png): the job page of
// the README's main example, submitted as a user would (`fmnist-train` found
// on PATH, the spec copied into a folder of its own), after it succeeded.
//
// usage: node web/test/readme_screenshot.mjs BUILD_DIR [OUT.png]
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DlpEnv } from "./lib/dlp_env.mjs";
import { Steps, newPage, waitWithoutError } from "./lib/steps.mjs";

const build = resolve(process.argv[2] ?? "build");
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const out = resolve(process.argv[3] ?? join(repo, "docs/images/ui-job.png"));
const env = new DlpEnv(build);
env.env.PATH = `${env.bin}:${env.env.PATH}`;
const steps = new Steps(join(build, "test-artifacts/readme-screenshot"));

let browser;
try {
  const base = env.start();
  const folder = join(env.dir, "fashion-mnist");
  mkdirSync(folder);
  copyFileSync(join(repo, "examples/fashion-mnist/job.yaml"), join(folder, "job.yaml"));
  const id = env.dlp(["submit", "-q", join(folder, "job.yaml")]).trim();
  env.dlp(["wait", id]);
  browser = await steps.launch();
  const page = await newPage(await browser.createBrowserContext());
  await page.goto(await env.signInUrl());
  await page.waitForFunction(() => location.pathname === "/");
  await page.goto(`${base}/jobs/${id}`);
  await waitWithoutError(page, ".log-panel[data-stream=ended]");
  await page.waitForFunction(() => document.querySelector("[data-test=log-view]")?.textContent.includes("test_accuracy"));
  await page.screenshot({ path: out });
  console.log(`job ${id}: ${out}`);
} finally {
  await browser?.close();
  env.stop();
}
