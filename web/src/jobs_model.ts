// The jobs the Jobs page holds: pages of GET /v1/jobs merged by id, newest
// first, and the name search over them. Pure: tested in Node.
import type { Job } from "./types";

export function compareIds(a: string, b: string): number {
  // Ids are decimal; longer is larger.
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export class JobSet {
  private byId = new Map<string, Job>();
  private sorted: Job[] | null = [];

  // Adds or replaces jobs; returns whether anything changed.
  merge(jobs: Job[]): boolean {
    let changed = false;
    for (const j of jobs) {
      const old = this.byId.get(j.id);
      if (old && JSON.stringify(old) === JSON.stringify(j)) continue;
      this.byId.set(j.id, j);
      changed = true;
    }
    if (changed) this.sorted = null;
    return changed;
  }

  clear(): void {
    this.byId.clear();
    this.sorted = [];
  }

  get size(): number {
    return this.byId.size;
  }

  // Newest first.
  all(): Job[] {
    if (!this.sorted) this.sorted = [...this.byId.values()].sort((a, b) => compareIds(b.id, a.id));
    return this.sorted;
  }

  oldestId(): string | undefined {
    const all = this.all();
    return all.length ? all[all.length - 1].id : undefined;
  }
}

export function matchesSearch(job: Job, search: string): boolean {
  if (!search) return true;
  const s = search.toLowerCase();
  return job.name.toLowerCase().includes(s) || job.id === search;
}

// "running/total" replicas; a queued job has none yet, so its spec counts
// (when the listing has it).
export function replicaSummary(job: Job): string {
  if (!job.replicas?.length && !job.spec?.replicas) return "–";
  const total = job.replicas?.length
    ? job.replicas.length
    : (job.spec?.replicas ?? []).reduce((n, r) => n + (r.count ?? 0), 0);
  const running = (job.replicas ?? []).filter((r) => r.state === "Running").length;
  return job.state === "Running" ? `${running}/${total}` : String(total);
}

export const isActive = (job: Job) => job.state === "Queued" || job.state === "Running";
