// Builds the dashboard into dist/: index.html and content-hashed assets
// (dlpd embeds the folder; see docs/ui.md). No inline script or style, so
// the page runs under dlpd's Content-Security-Policy.
import "./gen-types.mjs"; // src/generated/api.ts, from schema/api.schema.json
import * as esbuild from "esbuild";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, "assets"), { recursive: true });

const result = await esbuild.build({
  entryPoints: { app: join(root, "src/main.ts") },
  bundle: true,
  minify: true,
  sourcemap: false,
  format: "esm",
  target: ["es2020"],
  outdir: join(dist, "assets"),
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((f) => f.endsWith(".js"));
const css = outputs.find((f) => f.endsWith(".css"));
if (!js || !css) throw new Error(`build: expected a .js and a .css output, got ${outputs}`);

writeFileSync(
  join(dist, "index.html"),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dlp</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/${css}">
<script type="module" src="/assets/${js}"></script>
</head>
<body>
<noscript>The dlp dashboard needs JavaScript.</noscript>
</body>
</html>
`,
);
// dlpd's own pages (sign-in) link this one by its fixed name.
writeFileSync(join(dist, "login.css"), readFileSync(join(root, "src/login.css")));
// What a first visit downloads, compressed (the budget is 300 KB).
const files = ["index.html", `assets/${js}`, `assets/${css}`];
const gz = files.reduce((n, f) => n + gzipSync(readFileSync(join(dist, f)), { level: 9 }).length, 0);
console.log(`dist: ${files.join(", ")}; first load ${(gz / 1024).toFixed(1)} KiB gzipped`);
