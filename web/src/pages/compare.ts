// Compare (/compare?jobs=4,7,9): the runs' metrics overlaid, one chart per
// metric, each series named by its run's name and the parameters that differ
// between the runs (a trial's parameters, the labels), and a table of those
// parameters with the differing ones marked. Rank 0's values (what a trainer
// logs); refreshes while a run is active.
import { getJob, getSweep } from "../api";
import { h } from "../dom";
import { MetricChart } from "../chart";
import { isActive } from "../jobs_model";
import { toSeries, type MetricPoint } from "../metrics";
import { differing, facts, seriesName, type Described } from "../runs_model";
import type { Job, Sweep } from "../types";
import { errorNote, poll } from "../widgets";
import { jobMetrics } from "./metrics";

const MAX_RUNS = 20;

// Each job with its trial's parameters (from its sweep, when it is a trial).
async function describe(jobs: Job[]): Promise<Described[]> {
  const sweeps = new Map<string, Promise<Sweep>>();
  return Promise.all(jobs.map(async (job) => {
    const sweepId = job.spec.labels?.["dlp.dev/sweep"];
    let params: Described["params"];
    if (sweepId) {
      if (!sweeps.has(sweepId)) sweeps.set(sweepId, getSweep(sweepId));
      params = (await sweeps.get(sweepId)!.catch(() => null))?.trials.find((t) => t.job === job.id)?.params;
    }
    return { name: job.name, params, labels: job.spec.labels };
  }));
}

export function comparePage(root: HTMLElement, _: Record<string, string>, query: URLSearchParams) {
  const ids = [...new Set((query.get("jobs") ?? "").split(/[\s,]+/).filter(Boolean))].slice(0, MAX_RUNS);
  const status = h("div");
  const table = h("div", { class: "table-scroll" });
  const charts = h("div", { class: "charts", "data-test": "compare-charts" });
  root.append(h("h1", null, "Compare runs"), status, table, charts);
  if (ids.length < 1) {
    status.append(h("p", { class: "muted" }, "Select runs on the Jobs page (add a column to get the runs table) and press Compare."));
    return;
  }
  let shown: MetricChart[] = [];
  let active = true;

  function drawTable(jobs: Job[], runs: Described[], names: string[], keys: string[]) {
    const all = runs.map(facts);
    const rows = [...new Set(all.flatMap((f) => [...f.keys()]))].sort();
    const diff = new Set(keys);
    table.replaceChildren(h("table", { class: "params", "data-test": "compare-params" },
      h("thead", null, h("tr", null, h("th", null, "parameter"), ...jobs.map((j, i) => h("th", { title: names[i] }, h("a", { href: `/jobs/${j.id}` }, j.name))))),
      h("tbody", null, ...rows.map((k) => h("tr", { class: diff.has(k) ? "differs" : "", "data-param": k },
        h("td", null, k), ...all.map((f) => h("td", null, f.get(k) ?? "–")))))));
  }

  async function load() {
    const jobs = await Promise.all(ids.map((id) => getJob(id)));
    const runs = await describe(jobs);
    const keys = differing(runs);
    // Runs nothing tells apart (same name, same parameters) by their ids too.
    const named = runs.map((r) => seriesName(r, keys));
    const names = named.map((n, i) => (named.indexOf(n) !== named.lastIndexOf(n) ? `${n} #${jobs[i].id}` : n));
    const points: MetricPoint[] = [];
    await Promise.all(jobs.map(async (job, i) => {
      const rank0 = job.replicas[0]?.name;
      for (const p of await jobMetrics(job.id, new AbortController().signal)) {
        if (!rank0 || p.replica === rank0) points.push({ ...p, replica: names[i] });
      }
    }));
    active = jobs.some(isActive);
    drawTable(jobs, runs, names, keys);
    shown.forEach((c) => c.destroy());
    charts.replaceChildren();
    const byName = new Map<string, MetricPoint[]>();
    for (const p of points) {
      const list = byName.get(p.name);
      if (list) list.push(p);
      else byName.set(p.name, [p]);
    }
    // Series in the order of the runs, so that colours follow the table.
    const order = new Map(names.map((n, i) => [n, i]));
    shown = [...byName].sort((a, b) => a[0].localeCompare(b[0])).map(([name, pts]) =>
      new MetricChart(name, toSeries(pts).sort((a, b) => order.get(a.label)! - order.get(b.label)!), "step", 0));
    charts.append(...shown.map((c) => c.el));
    if (!shown.length) charts.append(h("p", { class: "muted" }, "No DLP_METRIC lines in these runs yet."));
    status.replaceChildren();
  }

  const stop = poll(async () => {
    if (active) await load().catch((e) => status.replaceChildren(errorNote(e)));
  }, 5000);
  return () => {
    stop();
    shown.forEach((c) => c.destroy());
  };
}
