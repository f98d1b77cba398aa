// Pipelines (/pipelines) and one pipeline (/pipelines/ID): its DAG, each job
// a box with its state and a link to the job, dependencies as arrows, left to
// right; a job that will never run because its condition was not met (a
// `condition: failed` job after a success) shows as Skipped. Live while the
// pipeline runs.
import { getPipeline, listPipelines } from "../api";
import { h, svg } from "../dom";
import { layers } from "../runs_model";
import type { Pipeline, PipelineJob } from "../types";
import { failureNote, poll, pollInto, stateBadge } from "../widgets";

const COL = 230;
const ROW = 74;
const BOX = { w: 190, h: 56 };

// dlpd cancels a job whose dependencies can never be met with this reason.
const skipped = (j: PipelineJob) => j.state === "Cancelled" && j.reason.startsWith("dependency job ");
const shownState = (j: PipelineJob) => (skipped(j) ? "Skipped" : j.state);

export function pipelinesPage(root: HTMLElement) {
  const body = h("div", { class: "table-scroll" });
  root.append(h("h1", null, "Pipelines"), body);
  return pollInto(body, async () => {
    const { pipelines } = await listPipelines();
    return (pipelines.length ? h("table", { class: "list", "data-test": "pipelines" },
        h("thead", null, h("tr", null, ...["ID", "Name", "State", "Jobs"].map((c) => h("th", null, c)))),
        h("tbody", null, ...[...pipelines].reverse().map((p) => h("tr", { "data-pipeline": p.id },
          h("td", null, h("a", { href: `/pipelines/${p.id}` }, p.id)), h("td", null, h("a", { href: `/pipelines/${p.id}` }, p.name)),
          h("td", null, stateBadge(p.state)), h("td", { class: "num" }, p.jobs.length))))) : h("p", { class: "muted" }, "No pipelines yet."));
  }, 5000);
}

function dag(p: Pipeline): HTMLElement {
  const depth = layers(p.jobs);
  const rows = new Map<number, number>();
  const at = new Map<string, { x: number; y: number }>();
  for (const j of p.jobs) {
    const d = depth.get(j.name) ?? 0;
    const r = rows.get(d) ?? 0;
    rows.set(d, r + 1);
    at.set(j.name, { x: d * COL, y: r * ROW });
  }
  const width = (Math.max(0, ...depth.values()) + 1) * COL;
  const height = Math.max(1, ...rows.values()) * ROW;
  const edges = svg("svg", { class: "dag-edges", width, height, viewBox: `0 0 ${width} ${height}` });
  for (const j of p.jobs) {
    const to = at.get(j.name)!;
    for (const dep of j.dependsOn) {
      const from = at.get(dep);
      if (!from) continue;
      const x1 = from.x + BOX.w, y1 = from.y + BOX.h / 2, x2 = to.x, y2 = to.y + BOX.h / 2;
      const mid = (x1 + x2) / 2;
      edges.append(svg("path", { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2 - 6},${y2}`, class: "dag-edge", "data-from": dep, "data-to": j.name }),
        svg("path", { d: `M${x2 - 6},${y2 - 4} L${x2},${y2} L${x2 - 6},${y2 + 4}`, class: "dag-edge" }));
    }
  }
  const box = h("div", { class: "dag", "data-test": "dag" }, edges);
  box.style.width = `${width}px`;
  box.style.height = `${height}px`;
  for (const j of p.jobs) {
    const pos = at.get(j.name)!;
    const state = shownState(j);
    const node = h("div", { class: `dag-node node-${state}`, "data-node": j.name, "data-state": state, title: j.reason },
      h("a", { href: `/jobs/${j.job}` }, j.name), " ", h("span", { class: "muted" }, `job ${j.job}`), h("div", null, stateBadge(state)));
    node.style.left = `${pos.x}px`;
    node.style.top = `${pos.y}px`;
    box.append(node);
  }
  return box;
}

export function pipelinePage(root: HTMLElement, params: Record<string, string>) {
  const head = h("div");
  const graph = h("div", { class: "dag-scroll" });
  const table = h("div", { class: "table-scroll" });
  root.append(head, graph, table);
  let done = false;
  const stop = poll(async () => {
    if (done) return;
    try {
      const p = await getPipeline(params.id);
      head.replaceChildren(h("h1", null, `Pipeline ${p.id}: ${p.name} `, stateBadge(p.state)));
      graph.replaceChildren(dag(p));
      table.replaceChildren(h("table", { class: "list" },
        h("thead", null, h("tr", null, ...["job", "id", "state", "waits for", "reason"].map((c) => h("th", null, c)))),
        h("tbody", null, ...p.jobs.map((j) => h("tr", null, h("td", null, j.name), h("td", null, h("a", { href: `/jobs/${j.job}` }, j.job)),
          h("td", null, stateBadge(shownState(j))), h("td", null, j.dependsOn.join(", ")), h("td", { class: "muted" }, j.reason))))));
      done = p.state !== "Queued" && p.state !== "Running";
    } catch (e) {
      head.replaceChildren(failureNote(e, `Pipeline ${params.id}`));
      done = true;
    }
  }, 2000);
  return stop;
}
