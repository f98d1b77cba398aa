// The Usage page's cluster view: CPUs and GPUs held by running jobs, by queue
// and tenant, now; and what each tenant's jobs held over the past day
// (GET /v1/usage/history, CPU- and GPU-hours per half hour).
import { getUsageHistory } from "../api";
import { h } from "../dom";
import { number } from "../format";
import { heldBy } from "../cluster_model";
import { Sparkline } from "../sparkline";
import type { JobSummary, UsageHistory } from "../types";

const HOURS = 24;
const HISTORY_EVERY = 30_000; // ms between asking for the history again

export class ClusterView {
  readonly el: HTMLElement;
  private now = h("div", { class: "table-scroll" });
  private history = h("div", { class: "table-scroll" });
  private asked = 0;

  constructor() {
    this.el = h("section", null, h("h2", null, "In use now, by queue and tenant"), this.now,
      h("h2", null, `By tenant, the past ${HOURS} hours`), this.history);
  }

  // Called with the running jobs on every refresh of the page.
  async update(running: JobSummary[]): Promise<void> {
    const held = heldBy(running);
    this.now.replaceChildren(held.length ? h("table", { class: "list", "data-test": "in-use" },
      h("thead", null, h("tr", null, ...["queue", "tenant", "jobs", "CPUs", "GPUs"].map((c) => h("th", null, c)))),
      h("tbody", null, ...held.map((x) => h("tr", { "data-queue": x.queue, "data-tenant": x.tenant },
        h("td", null, x.queue), h("td", null, x.tenant), h("td", { class: "num" }, x.jobs),
        h("td", { class: "num", "data-test": "cpu" }, number(x.cpu, 4)), h("td", { class: "num", "data-test": "gpu" }, number(x.gpu, 4))))))
      : h("p", { class: "muted" }, "Nothing running."));
    if (Date.now() - this.asked < HISTORY_EVERY) return;
    this.asked = Date.now();
    this.drawHistory(await getUsageHistory(HOURS));
  }

  private drawHistory(history: UsageHistory): void {
    const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
    const spark = (v: number[]) => {
      const s = new Sparkline();
      s.draw(v);
      return s.el;
    };
    if (!history.tenants.length) {
      this.history.replaceChildren(h("p", { class: "muted" }, "No job ran in this time."));
      return;
    }
    const rows = history.tenants.map((t) => h("tr", { "data-tenant": t.tenant }, h("td", null, t.tenant),
      h("td", { class: "num", "data-test": "cpu-hours", "data-value": String(sum(t.cpuHours)) }, number(sum(t.cpuHours), 3)),
      h("td", null, spark(t.cpuHours)),
      h("td", { class: "num" }, number(sum(t.gpuHours), 3)), h("td", null, spark(t.gpuHours))));
    this.history.replaceChildren(h("table", { class: "usage", "data-test": "tenant-history" },
      h("thead", null, h("tr", null, ...["tenant", "CPU-hours", "", "GPU-hours", ""].map((c) => h("th", null, c)))),
      h("tbody", null, ...rows)));
  }
}
