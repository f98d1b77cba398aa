// The Usage page's cluster view: CPUs and GPUs held by running jobs, by queue
// and tenant, now; and each tenant's over the time the page has been open
// (sampled with the page's refresh).
import { h } from "../dom";
import { number } from "../format";
import { byTenant, heldBy } from "../cluster_model";
import { Sparkline } from "../sparkline";
import type { JobSummary } from "../types";

const KEEP = 150; // samples, ~5 minutes at the page's 2 s

export class ClusterView {
  readonly el: HTMLElement;
  private now = h("div", { class: "table-scroll" });
  private history = h("tbody");
  private series = new Map<string, { cpu: number[]; gpu: number[]; sparks: Sparkline[]; cells: HTMLElement[] }>();

  constructor() {
    this.el = h("section", null, h("h2", null, "In use now, by queue and tenant"), this.now,
      h("h2", null, "By tenant since this page opened"),
      h("table", { class: "usage", "data-test": "tenant-history" },
        h("thead", null, h("tr", null, ...["tenant", "CPUs", "", "GPUs", ""].map((c) => h("th", null, c)))), this.history));
  }

  update(running: JobSummary[]): void {
    const held = heldBy(running);
    this.now.replaceChildren(held.length ? h("table", { class: "list", "data-test": "in-use" },
      h("thead", null, h("tr", null, ...["queue", "tenant", "jobs", "CPUs", "GPUs"].map((c) => h("th", null, c)))),
      h("tbody", null, ...held.map((x) => h("tr", { "data-queue": x.queue, "data-tenant": x.tenant },
        h("td", null, x.queue), h("td", null, x.tenant), h("td", { class: "num" }, x.jobs),
        h("td", { class: "num", "data-test": "cpu" }, number(x.cpu, 4)), h("td", { class: "num", "data-test": "gpu" }, number(x.gpu, 4))))))
      : h("p", { class: "muted" }, "Nothing running."));
    const tenants = byTenant(held);
    for (const name of tenants.keys()) {
      if (this.series.has(name)) continue;
      const s = { cpu: [] as number[], gpu: [] as number[], sparks: [new Sparkline(), new Sparkline()], cells: [h("td", { class: "num" }), h("td", { class: "num" })] };
      // A tenant seen now was at zero before.
      const before = this.series.values().next().value?.cpu.length ?? 0;
      s.cpu.push(...new Array(before).fill(0));
      s.gpu.push(...new Array(before).fill(0));
      this.series.set(name, s);
      this.history.append(h("tr", { "data-tenant": name }, h("td", null, name), s.cells[0], h("td", null, s.sparks[0].el), s.cells[1], h("td", null, s.sparks[1].el)));
    }
    for (const [name, s] of this.series) {
      const t = tenants.get(name) ?? { cpu: 0, gpu: 0 };
      s.cpu.push(t.cpu);
      s.gpu.push(t.gpu);
      if (s.cpu.length > KEEP) (s.cpu.shift(), s.gpu.shift());
      s.cells[0].textContent = number(t.cpu, 4);
      s.cells[1].textContent = number(t.gpu, 4);
      s.sparks[0].draw(s.cpu);
      s.sparks[1].draw(s.gpu);
    }
  }
}
