// Sweeps (/sweeps) and one sweep (/sweeps/ID): the leaderboard (objective,
// the parameters, each trial's state and why it stopped), the objective of
// each trial over the resource (epochs), parallel coordinates of parameters
// → objective, and ASHA's rungs. Live while the sweep runs.
import { getSweep, listSweeps } from "../api";
import { h } from "../dom";
import { MetricChart } from "../chart";
import { number } from "../format";
import { toSeries, type MetricPoint } from "../metrics";
import { parallelCoordinates } from "../parallel_coords";
import type { Sweep, SweepTrial } from "../types";
import { failureNote, poll, pollInto, stateBadge } from "../widgets";
import { jobMetrics } from "./metrics";

const CHARTED = 30; // trials whose curves are drawn (the best ones)

export function sweepsPage(root: HTMLElement) {
  const body = h("div", { class: "table-scroll" });
  root.append(h("h1", null, "Sweeps"), body);
  return pollInto(body, async () => {
    const { sweeps } = await listSweeps();
    return (sweeps.length ? h("table", { class: "list", "data-test": "sweeps" },
        h("thead", null, h("tr", null, ...["ID", "Name", "State", "Objective", "Trials", "Best"].map((c) => h("th", null, c)))),
        h("tbody", null, ...[...sweeps].reverse().map((s) => {
          const best = ranked(s)[0];
          return h("tr", { "data-sweep": s.id }, h("td", null, h("a", { href: `/sweeps/${s.id}` }, s.id)),
            h("td", null, h("a", { href: `/sweeps/${s.id}` }, s.spec.name)), h("td", null, stateBadge(s.state)),
            h("td", null, `${s.spec.objective.goal} ${s.spec.objective.metric}`), h("td", { class: "num" }, s.trials.length),
            h("td", { class: "num" }, best?.objective != null ? number(best.objective, 6) : "–"));
        }))) : h("p", { class: "muted" }, "No sweeps yet (dlp sweep submit)."));
  }, 5000);
}

// Trials with an objective, best first; then the others by number.
function ranked(s: Sweep): SweepTrial[] {
  const sign = s.spec.objective.goal === "minimize" ? 1 : -1;
  return [...s.trials].sort((a, b) => {
    if ((a.objective === null) !== (b.objective === null)) return a.objective === null ? 1 : -1;
    return a.objective !== null && b.objective !== null && a.objective !== b.objective ? sign * (a.objective - b.objective) : a.trial - b.trial;
  });
}

// Why a trial is where it is: its job's reason (ASHA's "stopped at rung ..."), or "finished".
function why(t: SweepTrial): string {
  if (t.reason) return t.reason;
  if (t.state === "Succeeded") return "finished";
  if (t.stopRequested) return "being stopped";
  return "";
}

export function sweepPage(root: HTMLElement, params: Record<string, string>) {
  const head = h("div");
  const board = h("div", { class: "table-scroll" });
  const curves = h("div", { class: "charts" });
  const parallel = h("div", { class: "parallel-host" });
  const rungs = h("div", { class: "table-scroll" });
  root.append(head, h("h2", null, "Leaderboard"), board, h("h2", null, "Parameters → objective"), parallel,
    h("h2", null, "Objective per trial"), curves, rungs);
  let chart: MetricChart | null = null;
  let lastCurves = 0;
  let running = true;

  function drawHead(s: Sweep) {
    const o = s.spec.objective;
    head.replaceChildren(h("h1", null, `Sweep ${s.id}: ${s.spec.name} `, stateBadge(s.state)),
      h("p", { class: "muted" }, `${o.goal} ${o.metric} · ${s.spec.search.algorithm} · ${s.trials.length} trials · parallelism ${s.spec.parallelism}`,
        s.reason ? ` · ${s.reason}` : ""),
      h("a", { href: `/jobs?columns=${s.spec.parameters.map((p) => `param.${p.name}`).concat(`metric.${o.metric}`).join(",")}&where=label.dlp.dev/sweep=${s.id}&sort=${o.goal === "minimize" ? "" : "-"}metric.${o.metric}` }, "these trials in the runs table"));
  }

  function drawBoard(s: Sweep) {
    const names = s.spec.parameters.map((p) => p.name);
    board.replaceChildren(h("table", { class: "leaderboard", "data-test": "leaderboard" },
      h("thead", null, h("tr", null, ...["#", "trial", "job", ...names, s.spec.objective.metric, s.spec.search.resource, "state", "why"].map((c) => h("th", null, c)))),
      h("tbody", null, ...ranked(s).map((t, i) => h("tr", { "data-trial": t.trial, "data-job": t.job },
        h("td", { class: "num" }, t.objective === null ? "" : i + 1), h("td", { class: "num" }, t.trial),
        h("td", null, t.job ? h("a", { href: `/jobs/${t.job}` }, t.job) : "–"),
        ...names.map((n) => h("td", { class: "num", "data-param": n }, t.params[n] ?? "")),
        h("td", { class: "num", "data-test": "objective", "data-value": String(t.objective) }, t.objective === null ? "–" : number(t.objective, 6)),
        h("td", { class: "num" }, t.resource || ""), h("td", null, stateBadge(t.state)), h("td", { class: "trial-why" }, why(t)))))));
  }

  function drawRungs(s: Sweep) {
    if (s.spec.search.algorithm !== "asha") return rungs.replaceChildren();
    const levels = [...new Set(s.trials.flatMap((t) => Object.keys(t.rungs).map(Number)))].sort((a, b) => a - b);
    rungs.replaceChildren(h("h2", null, "ASHA rungs"), h("table", { class: "rungs", "data-test": "rungs" },
      h("thead", null, h("tr", null, h("th", null, `trial \\ ${s.spec.search.resource}`), ...levels.map((r) => h("th", null, r)))),
      h("tbody", null, ...ranked(s).map((t) => h("tr", null, h("td", null, `#${t.trial}`),
        ...levels.map((r) => h("td", { class: "num" }, t.rungs[r] === undefined ? "" : number(t.rungs[r], 5))))))));
  }

  async function drawCurves(s: Sweep) {
    const metric = s.spec.objective.metric;
    const points: MetricPoint[] = [];
    const top = ranked(s).filter((t) => t.job).slice(0, CHARTED);
    await Promise.all(top.map(async (t) => {
      const label = `#${t.trial} ${s.spec.parameters.map((p) => `${p.name}=${t.params[p.name]}`).join(" ")}`;
      for (const p of await jobMetrics(t.job, new AbortController().signal)) {
        if (p.name === metric && p.replica.endsWith("-0")) points.push({ ...p, replica: label });
      }
    }));
    chart?.destroy();
    chart = new MetricChart(metric, toSeries(points), s.spec.search.resource, 0);
    curves.replaceChildren(chart.el);
  }

  async function load() {
    const s = await getSweep(params.id);
    running = s.state === "Running";
    drawHead(s);
    drawBoard(s);
    parallel.replaceChildren(parallelCoordinates(s));
    drawRungs(s);
    if (Date.now() - lastCurves > 5000 || !running) {
      lastCurves = Date.now();
      await drawCurves(s);
    }
  }

  let done = false;
  const stop = poll(async () => {
    if (done) return;
    await load().catch((e) => {
      head.replaceChildren(failureNote(e, `Sweep ${params.id}`));
      running = false;
    });
    done = !running;
  }, 2000);
  return () => {
    stop();
    chart?.destroy();
  };
}
