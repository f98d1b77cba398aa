// What running jobs hold, by queue and tenant: CPU cores and GPUs as their
// specs ask for them (dlpd reserves what a job asks). Pure: tested in Node.
import type { JobSummary } from "./types";

// A CPU quantity as specs write it: "2", "0.5", "500m".
export function cpuCores(q: string | number | undefined): number {
  if (q === undefined || q === "") return 0;
  const s = String(q).trim();
  const v = s.endsWith("m") ? Number(s.slice(0, -1)) / 1000 : Number(s);
  return Number.isFinite(v) && v > 0 ? v : 0;
}

export interface Held {
  queue: string;
  tenant: string;
  jobs: number;
  cpu: number;
  gpu: number;
}

export function heldBy(jobs: JobSummary[]): Held[] {
  const out = new Map<string, Held>();
  for (const j of jobs) {
    if (j.state !== "Running" || !j.spec) continue;
    const queue = j.queue || "default";
    const key = `${queue}\u0000${j.tenant}`;
    let h = out.get(key);
    if (!h) out.set(key, (h = { queue, tenant: j.tenant, jobs: 0, cpu: 0, gpu: 0 }));
    h.jobs++;
    for (const r of j.spec.replicas) {
      h.cpu += r.count * cpuCores(r.resources?.cpu);
      h.gpu += r.count * (Number(r.resources?.gpu) || 0);
    }
  }
  return [...out.values()].sort((a, b) => a.queue.localeCompare(b.queue) || a.tenant.localeCompare(b.tenant));
}
