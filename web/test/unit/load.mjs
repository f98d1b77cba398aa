// Loads a TypeScript module of src/ in Node: esbuild bundles it in memory and
// it is imported from a data: URL. Only pure modules (no DOM) are loaded so.
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";

export async function load(name) {
  const entry = fileURLToPath(new URL(`../../src/${name}.ts`, import.meta.url));
  const out = await esbuild.build({ entryPoints: [entry], bundle: true, format: "esm", write: false, platform: "neutral" });
  const code = out.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
}
