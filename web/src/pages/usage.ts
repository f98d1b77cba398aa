// The Usage page: CPU, memory and GPU of every running replica (the data of
// `dlp top`, sampled by dlpd every 2 s) as live sparklines, and the queues
// with their quotas, use, borrowed, lent and fair shares; what running jobs
// hold by queue and tenant (ClusterView).
import { getQueues, getUsage, listJobs } from "../api";
import { h } from "../dom";
import { bytes, number } from "../format";
import { Sparkline } from "../sparkline";
import { ClusterView } from "./cluster";
import type { QueueStanding, ReplicaUsage, Resources } from "../types";
import { errorNote, poll } from "../widgets";

const KEEP = 150; // samples per replica, ~5 minutes

interface History {
  job: string;
  jobName: string;
  samples: ReplicaUsage[];
  sparks: Sparkline[];
  row: HTMLTableRowElement;
  cells: HTMLElement[];
}

function resources(r?: Resources): string {
  if (!r) return "–";
  const parts = Object.entries(r).filter(([, v]) => v !== 0 && v !== "0");
  return parts.length ? parts.map(([k, v]) => `${k} ${v}`).join(", ") : "–";
}

function queueTable(queues: QueueStanding[]): HTMLElement {
  const cols = ["queue", "cohort", "nominal", "used", "borrowed", "lent", "pending", "running", "share"];
  return h("table", { class: "queues", "data-test": "queues" },
    h("thead", null, h("tr", null, ...cols.map((c) => h("th", null, c)))),
    h("tbody", null, ...queues.map((q) => h("tr", { "data-queue": q.name },
      h("td", null, q.name), h("td", null, q.cohort ?? ""), h("td", null, resources(q.nominal)),
      h("td", null, resources(q.used)), h("td", null, resources(q.borrowed)), h("td", null, resources(q.lent)),
      h("td", { class: "num" }, q.pending), h("td", { class: "num" }, q.running),
      h("td", { class: "num" }, number(q.share, 3))))));
}

export function usagePage(root: HTMLElement) {
  const tbody = h("tbody");
  const empty = h("p", { class: "muted" }, "No running replicas.");
  const queues = h("div", { class: "table-scroll" });
  const status = h("div");
  const cluster = new ClusterView();
  root.append(h("h1", null, "Usage"), status,
    h("div", { class: "table-scroll" }, h("table", { class: "usage", "data-test": "usage" },
      h("thead", null, h("tr", null, ...["job", "replica", "CPU %", "", "memory", "", "GPU %", "", "GPU memory", ""].map((c) => h("th", null, c)))),
      tbody)),
    empty, h("h2", null, "Queues"), queues, cluster.el);

  const histories = new Map<string, History>();

  async function refresh() {
    const { jobs } = await listJobs({ state: "Running" });
    await cluster.update(jobs);
    const usages = await Promise.all(jobs.map((j) => getUsage(j.id).then((u) => ({ j, u }), () => null)));
    const seen = new Set<string>();
    for (const r of usages) {
      if (!r) continue;
      for (const s of r.u.replicas) {
        const key = `${r.j.id}/${s.replica}`;
        seen.add(key);
        let hist = histories.get(key);
        if (!hist) {
          const sparks = [new Sparkline(), new Sparkline(), new Sparkline(), new Sparkline()];
          const cells = [h("td", { class: "num" }), h("td", { class: "num" }), h("td", { class: "num" }), h("td", { class: "num" })];
          const row = h("tr", { "data-replica": key },
            h("td", null, h("a", { href: `/jobs/${r.j.id}` }, `${r.j.id} ${r.j.name}`)), h("td", null, s.replica),
            cells[0], h("td", null, sparks[0].el), cells[1], h("td", null, sparks[1].el),
            cells[2], h("td", null, sparks[2].el), cells[3], h("td", null, sparks[3].el));
          histories.set(key, (hist = { job: r.j.id, jobName: r.j.name, samples: [], sparks, row, cells }));
          tbody.append(row);
        }
        const lastTime = hist.samples[hist.samples.length - 1]?.time;
        if (s.time !== lastTime) hist.samples.push(s);
        if (hist.samples.length > KEEP) hist.samples.shift();
        const ss = hist.samples;
        hist.cells[0].textContent = number(s.cpuPercent, 3);
        hist.cells[1].textContent = bytes(s.rssBytes);
        hist.cells[2].textContent = s.gpuUtilPercent === null ? "–" : number(s.gpuUtilPercent, 3);
        hist.cells[3].textContent = bytes(s.gpuMemoryBytes);
        hist.sparks[0].draw(ss.map((x) => x.cpuPercent), 100);
        hist.sparks[1].draw(ss.map((x) => x.rssBytes));
        hist.sparks[2].draw(ss.map((x) => x.gpuUtilPercent), 100);
        hist.sparks[3].draw(ss.map((x) => x.gpuMemoryBytes));
      }
    }
    for (const [key, hist] of histories) {
      if (!seen.has(key)) {
        hist.row.remove();
        histories.delete(key);
      }
    }
    empty.hidden = histories.size > 0;
    queues.replaceChildren(queueTable(await getQueues()));
    status.replaceChildren();
  }

  return poll(() => refresh().catch((e) => status.replaceChildren(errorNote(e))), 2000);
}
