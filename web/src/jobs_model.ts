// The jobs the Jobs page holds: pages of GET /v1/jobs merged by id, newest
// first, and the name search over them. Pure: tested in Node.
import type { JobSummary } from "./types";

export function compareIds(a: string, b: string): number {
  // Ids are decimal; longer is larger.
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

// Two lists sorted newest first, as one.
function mergeNewestFirst(a: JobSummary[], b: JobSummary[]): JobSummary[] {
  const out: JobSummary[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(compareIds(a[i].id, b[j].id) > 0 ? a[i++] : b[j++]);
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

export class JobSet {
  private byId = new Map<string, JobSummary>();
  private sorted: JobSummary[] | null = [];

  // Adds or replaces jobs; returns the ids of those that are new or changed.
  // New jobs are merged into the order (pages come sorted), not sorted again.
  merge(jobs: JobSummary[]): string[] {
    const changed: string[] = [];
    const added: JobSummary[] = [];
    for (const j of jobs) {
      const old = this.byId.get(j.id);
      if (old && JSON.stringify(old) === JSON.stringify(j)) continue;
      this.byId.set(j.id, j);
      changed.push(j.id);
      if (!old) added.push(j);
    }
    if (!this.sorted || !changed.length) return changed;
    const kept =
        added.length < changed.length ? this.sorted.map((j) => this.byId.get(j.id)!) : this.sorted;
    this.sorted =
        added.length ? mergeNewestFirst(kept, added.sort((a, b) => compareIds(b.id, a.id))) : kept;
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
  all(): JobSummary[] {
    if (!this.sorted) this.sorted = [...this.byId.values()].sort((a, b) => compareIds(b.id, a.id));
    return this.sorted;
  }
}

// The `before` of each older page to ask for next, below the oldest of
// `jobs` (newest first). A page is the newest `size` jobs below its `before`.
// Where the oldest `size` jobs held have ids without a gap (the list of one
// user, unfiltered), the ids below likely have none either, and `parallel`
// windows a page wide are asked for at once: a window holds at most `size`
// ids, so each page reaches down at least to the next window's `before` and
// together they leave no gap (a window with gaps answers jobs of the next
// one too; they merge by id). Elsewhere one page, as a cursor.
export function olderPages(jobs: JobSummary[], size: number, parallel: number): string[] {
  if (!jobs.length) return [];
  const tail = jobs.slice(-size);
  const oldest = Number(tail[tail.length - 1].id);
  const dense = Number(tail[0].id) - oldest + 1 === tail.length;
  const befores: string[] = [];
  for (let k = 0; k < (dense ? parallel : 1) && oldest - k * size > 1; k++) {
    befores.push(String(oldest - k * size));
  }
  return befores;
}

export function matchesSearch(job: JobSummary, search: string): boolean {
  if (!search) return true;
  const s = search.toLowerCase();
  return job.name.toLowerCase().includes(s) || job.id === search;
}

// "running/total" replicas; a queued job has none yet, so its spec counts
// (when the listing has it).
export function replicaSummary(job: JobSummary): string {
  if (!job.replicas?.length && !job.spec?.replicas) return "–";
  const total = job.replicas?.length
    ? job.replicas.length
    : (job.spec?.replicas ?? []).reduce((n, r) => n + (r.count ?? 0), 0);
  const running = (job.replicas ?? []).filter((r) => r.state === "Running").length;
  return job.state === "Running" ? `${running}/${total}` : String(total);
}

export const isActive = (job: JobSummary) => job.state === "Queued" || job.state === "Running";
