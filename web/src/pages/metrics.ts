// The Metrics page: every DLP_METRIC series of one or more jobs (read from
// their metrics files, which keep every point whatever the logs' rotation), a
// chart per metric with the jobs overlaid, smoothing, x by step or time, CSV
// export. Refreshes while a job runs. The defaults are `dlp metrics --plot`'s:
// rank 0's series per job, linear axes, no smoothing.
import { getJob, listJobs, openLogs } from "../api";
import { download, h } from "../dom";
import { isActive } from "../jobs_model";
import { MetricChart } from "../chart";
import { metricFromLogLine, pickSeries, REPLICA_SERIES, toCsv, toSeries, type LogLine, type MetricPoint, type ReplicaSeries } from "../metrics";
import { readNdjson } from "../ndjson";
import type { JobSummary } from "../types";
import { errorNote, poll } from "../widgets";

export async function jobMetrics(id: string, signal: AbortSignal): Promise<MetricPoint[]> {
  const points: MetricPoint[] = [];
  const res = await openLogs(id, { metrics: "only" }, signal);
  await readNdjson<LogLine>(res.body!, (l) => {
    const p = metricFromLogLine(l);
    if (p) points.push(p);
  });
  return points;
}

export function metricsPage(root: HTMLElement, _: Record<string, string>, query: URLSearchParams) {
  const jobsInput = h("input", { name: "jobs", placeholder: "job ids: 7, 9", list: "recent-jobs", "aria-label": "jobs" });
  jobsInput.value = query.get("jobs") ?? "";
  const recent = h("datalist", { id: "recent-jobs" });
  const smoothing = h("input", { type: "range", min: "0", max: "0.99", step: "0.01", value: query.get("smooth") ?? "0", "aria-label": "smoothing" });
  const smoothLabel = h("span", { class: "muted" });
  const xSelect = h("select", { "aria-label": "x axis" }, h("option", { value: "step" }, "by step"), h("option", { value: "time" }, "by time"));
  const replicas = h("select", { "aria-label": "replicas" }, ...REPLICA_SERIES.map((r) =>
    h("option", { value: r }, r === "rank0" ? "rank 0" : r === "each" ? "every replica" : `${r} of replicas`)));
  replicas.value = REPLICA_SERIES.includes(query.get("replicas") as ReplicaSeries) ? query.get("replicas")! : "rank0";
  const logY = h("input", { type: "checkbox", "aria-label": "log scale" });
  logY.checked = query.get("log") === "1";
  const csv = h("button", { "data-test": "csv" }, "CSV");
  const charts = h("div", { class: "charts" });
  const status = h("div");
  root.append(h("h1", null, "Metrics"),
    h("div", { class: "toolbar" }, jobsInput, recent, xSelect, replicas, h("label", null, logY, " log scale"),
      h("label", null, "smoothing ", smoothing), smoothLabel, csv),
    status, charts);

  let points: MetricPoint[] = [];
  let shown: MetricChart[] = [];
  let abort = new AbortController();
  let active = false;
  let key = "";

  const ids = () => [...new Set(jobsInput.value.split(/[\s,]+/).filter(Boolean))];
  const weight = () => Number(smoothing.value);

  function draw() {
    smoothLabel.textContent = weight().toFixed(2);
    shown.forEach((c) => c.destroy());
    charts.replaceChildren();
    shown = [];
    const byName = new Map<string, MetricPoint[]>();
    for (const p of points) {
      const list = byName.get(p.name);
      if (list) list.push(p);
      else byName.set(p.name, [p]);
    }
    if (!byName.size) {
      charts.append(h("p", { class: "muted" }, ids().length ? "No DLP_METRIC lines in these jobs' logs yet." : "Choose one or more jobs."));
      return;
    }
    for (const [name, pts] of [...byName].sort((a, b) => a[0].localeCompare(b[0]))) {
      const series = pickSeries(toSeries(pts, xSelect.value === "time"), replicas.value as ReplicaSeries);
      const c = new MetricChart(name, series, xSelect.value === "time" ? "seconds" : "step", weight(), logY.checked);
      charts.append(c.el);
      shown.push(c);
    }
    charts.setAttribute("data-ready", key);
  }

  async function load() {
    const list = ids();
    const k = list.join(",");
    if (k !== key) points = [];
    key = k;
    abort.abort();
    abort = new AbortController();
    const signal = abort.signal;
    const several = list.length > 1;
    const all: MetricPoint[] = [];
    let anyActive = false;
    for (const id of list) {
      const [job, pts] = await Promise.all([getJob(id, signal), jobMetrics(id, signal)]);
      anyActive ||= isActive(job);
      // Several jobs' replicas are told apart as "JOB/replica", as in dlp metrics.
      for (const p of pts) all.push(several ? { ...p, replica: `${id}/${p.replica}` } : p);
    }
    if (signal.aborted) return;
    active = anyActive;
    points = all;
    status.replaceChildren();
    draw();
  }

  function changed() {
    const q = new URLSearchParams();
    if (ids().length) q.set("jobs", ids().join(","));
    if (weight() > 0) q.set("smooth", String(weight()));
    if (replicas.value !== "rank0") q.set("replicas", replicas.value);
    if (logY.checked) q.set("log", "1");
    history.replaceState(null, "", `/charts${q.toString() ? `?${q}` : ""}`);
    load().catch((e) => status.replaceChildren(errorNote(e)));
  }
  jobsInput.addEventListener("change", changed);
  xSelect.addEventListener("change", draw);
  for (const input of [replicas, logY]) {
    input.addEventListener("change", () => {
      draw();
      changed();
    });
  }
  smoothing.addEventListener("input", () => {
    smoothLabel.textContent = weight().toFixed(2);
    shown.forEach((c) => c.setSmoothing(weight()));
  });
  smoothing.addEventListener("change", changed);
  csv.addEventListener("click", () => download(`metrics-${ids().join("-") || "none"}.csv`, new Blob([toCsv(points)], { type: "text/csv" })));

  // The newest jobs, to add to the chart or take off it with a click.
  const picks = h("div", { class: "picks" });
  root.insertBefore(picks, status);
  function drawPicks(jobs: JobSummary[]) {
    const chosen = new Set(ids());
    picks.replaceChildren(h("span", { class: "muted" }, "recent:"), ...jobs.slice(0, 12).map((j) =>
      h("button", { class: chosen.has(j.id) ? "small pick on" : "small pick", title: j.state, on: { click: () => {
        const now = ids();
        jobsInput.value = (now.includes(j.id) ? now.filter((i) => i !== j.id) : [...now, j.id]).join(", ");
        drawPicks(jobs);
        changed();
      } } }, `${j.id} ${j.name}`)));
  }
  listJobs({ limit: 50 }).then(({ jobs }) => {
    jobs.reverse();
    recent.replaceChildren(...jobs.map((j) => h("option", { value: j.id }, `${j.name} (${j.state})`)));
    drawPicks(jobs);
  }).catch(() => {});

  let first = true;
  const stop = poll(async () => {
    if (!first && !active) return;
    first = false;
    await load().catch((e) => status.replaceChildren(errorNote(e)));
  }, 5000);
  return () => {
    stop();
    abort.abort();
    shown.forEach((c) => c.destroy());
  };
}
