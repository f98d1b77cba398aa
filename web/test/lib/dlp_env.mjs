// A real dlpd for the browser tests: the build's dlp and dlpd on a temporary
// state folder (as tests/e2e/cli_harness.h sets them up), jobs submitted
// through the CLI.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const shellQuote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

export class DlpEnv {
  // dlpdArgs: flags for dlpd beyond the state folder and address (["--gpus", "2"]).
  constructor(buildDir, { dlpdArgs = [] } = {}) {
    this.bin = join(buildDir, "bin");
    this.dir = mkdtempSync(join(tmpdir(), "dlp-web-test-"));
    // Searchable by others, as tenants' jobs run as their own Unix users
    // (else dlpd serves its owner only).
    chmodSync(this.dir, 0o711);
    mkdirSync(join(this.dir, "state"), { mode: 0o711 });
    mkdirSync(join(this.dir, "work"), { mode: 0o700 });
    this.env = {
      ...process.env,
      XDG_STATE_HOME: join(this.dir, "state"),
      XDG_CONFIG_HOME: join(this.dir, "config"),
      DLP_CONFIG: join(this.dir, "no-such-config.yaml"),
      NO_COLOR: "1",
    };
    delete this.env.DLP_CONTEXT;
    if (dlpdArgs.length) {
      // `dlp server start` gives $DLP_DLPD only --state-dir and --listen.
      const wrapper = join(this.dir, "dlpd");
      const [dlpd, ...args] = [join(this.bin, "dlpd"), ...dlpdArgs].map(shellQuote);
      writeFileSync(wrapper, `#!/bin/sh\nexec ${dlpd} "$@" ${args.join(" ")}\n`, { mode: 0o755 });
      this.env.DLP_DLPD = wrapper;
    }
  }

  stateDir() {
    return join(this.dir, "state/dlp");
  }

  work(name) {
    return join(this.dir, "work", name);
  }

  // Runs dlp; returns stdout, throws with stderr on a non-zero exit unless `check` is false.
  dlp(args, { check = true, input } = {}) {
    try {
      return execFileSync(join(this.bin, "dlp"), args, { env: this.env, cwd: this.dir, input, encoding: "utf8", timeout: 120_000 });
    } catch (e) {
      if (!check) return e.stdout ?? "";
      throw new Error(`dlp ${args.join(" ")} failed (${e.status}): ${e.stderr}${e.stdout}`);
    }
  }

  start() {
    this.dlp(["server", "start"]);
    this.base = `http://${readFileSync(join(this.stateDir(), "dlpd.addr"), "utf8").trim()}`;
    return this.base;
  }

  // The owner's one-time sign-in link: what `dlp ui --print-url` prints, or,
  // with a dlp that has no `ui` command yet, the code from POST /v1/ui/codes.
  async signInUrl() {
    const out = this.dlp(["ui", "--print-url"], { check: false });
    const printed = /https?:\/\/\S+\/login\?code=\S+/.exec(out)?.[0];
    if (printed) return printed;
    const token = readFileSync(join(this.stateDir(), "dlpd.token"), "utf8").trim();
    const res = await fetch(`${this.base}/v1/ui/codes`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    if (res.status !== 201) throw new Error(`POST /v1/ui/codes: ${res.status} ${await res.text()}`);
    return `${this.base}/login?code=${encodeURIComponent((await res.json()).code)}`;
  }

  // A one-role job whose replicas run `script` with /bin/sh; returns its id.
  // gpu: each replica's resources.gpu (1, 0.5), none when undefined.
  submit(name, script, { count = 1, cpu = "100m", gpu, extra = "" } = {}) {
    const indented = script.trim().split("\n").join("\n          ");
    const yaml = `apiVersion: dlp/v1\nkind: Job\nmetadata: {name: ${name}}\nspec:\n` +
      `  replicas:\n    worker:\n      count: ${count}\n      command:\n` +
      `        - /bin/sh\n        - -c\n        - |\n          ${indented}\n` +
      `      resources: {cpu: ${cpu}${gpu === undefined ? "" : `, gpu: ${gpu}`}}\n${extra}`;
    const path = join(this.dir, `${name}.yaml`);
    writeFileSync(path, yaml);
    return this.dlp(["submit", "-q", path]).trim();
  }

  status(id) {
    return JSON.parse(this.dlp(["status", id, "-o", "json"]));
  }

  touch(name) {
    writeFileSync(this.work(name), "go\n");
  }

  stop() {
    if (existsSync(join(this.stateDir(), "dlpd.addr"))) this.dlp(["server", "stop"], { check: false });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
