// A development server for the dashboard: serves dist/ (rebuilt by `npm run
// build`) under dlpd's Content-Security-Policy, and forwards /v1/* to a
// running dlpd with the owner's token from its state folder, so a change in
// src/ needs no C++ rebuild. Signs in as the owner; for local use only.
//
// usage: npm run build && node dev.mjs [STATE_DIR] [PORT]
//   STATE_DIR defaults to $XDG_STATE_HOME/dlp (~/.local/state/dlp)
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { createServer, request } from "node:http";
import { homedir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("dist", import.meta.url));
const state = process.argv[2] ?? join(process.env.XDG_STATE_HOME ?? join(homedir(), ".local/state"), "dlp");
const port = Number(process.argv[3] ?? 8088);
const [host, dlpdPort] = readFileSync(join(state, "dlpd.addr"), "utf8").trim().split(":");
const token = readFileSync(join(state, "dlpd.token"), "utf8").trim();
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const TYPES = { ".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".png": "image/png" };

createServer((req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  if (path === "/v1/ui/session") {
    res.writeHead(200, { "Content-Type": "application/json" });
    return res.end(JSON.stringify({ tenant: "@owner", admin: true, csrf: "dev" }));
  }
  if (path.startsWith("/v1/")) {
    const headers = { ...req.headers, authorization: `Bearer ${token}`, host: `${host}:${dlpdPort}` };
    const up = request({ host, port: dlpdPort, path: req.url, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on("error", (e) => res.writeHead(502).end(String(e)));
    req.pipe(up);
    res.on("close", () => up.destroy());
    return;
  }
  let file = join(dist, normalize(path).replace(/^(\.\.[/\\])+/, ""));
  if (!path.startsWith("/assets/") || !existsSync(file) || !statSync(file).isFile()) file = join(dist, "index.html");
  res.writeHead(200, { "Content-Type": TYPES[extname(file)] ?? "application/octet-stream", "Content-Security-Policy": CSP });
  createReadStream(file).pipe(res);
}).listen(port, "127.0.0.1", () => console.log(`dashboard on http://127.0.0.1:${port}/ (dlpd ${host}:${dlpdPort})`));
