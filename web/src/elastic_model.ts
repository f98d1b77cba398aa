// An elastic job on the Job page: its size now within its range, and each
// time its group re-formed at another size. Pure: tested in Node.
import type { Job, JobEvent } from "./types";

// The elastic role's range of replicas; null for a rigid job.
export function elasticRange(job: Job): { min: number; max: number } | null {
  for (const role of job.spec.replicas ?? []) {
    if (role.minCount !== undefined && role.minCount < role.count) {
      return { min: role.minCount, max: role.count };
    }
  }
  return null;
}

// The header's facts of an elastic job (none for a rigid one): "size" as
// `dlp list -o wide` writes it, "2 (2-4)", and how often the group re-formed.
export function elasticFacts(job: Job): [string, string][] {
  const range = elasticRange(job);
  if (!range) return [];
  const span = `${range.min}-${range.max}`;
  return [
    ["size", job.size !== undefined ? `${job.size} (${span})` : `not started (${span})`],
    ["resizes", String(job.resizes ?? 0)],
  ];
}

// Every resize, oldest first: the `Resized` events ("Resized 4→2 (for job 17,
// priority 100)").
export function resizeHistory(events: JobEvent[]): JobEvent[] {
  return events.filter((e) => e.type === "Resized");
}
