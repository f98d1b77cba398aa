// The merged Chrome trace that dlpd serves (GET /v1/jobs/ID/profile/trace:
// libdlp's MergeTraces, what `dlp profile --trace` writes: pid = rank, a track
// per category and thread, clock offsets applied, time 0 = the first event)
// read into the timeline's rows. The merge and the straggler summary are
// dlpd's (GET /v1/jobs/ID/profile); nothing here computes them again.
// Pure: tested in Node.

export interface ChromeEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts?: number; // µs from the first event
  dur?: number;
  cat?: string;
  args?: Record<string, unknown>;
}

export interface MergedTrace {
  traceEvents: ChromeEvent[];
}

export interface Span {
  name: string;
  cat: string;
  start: number; // µs from the first event, rank 0's clock
  dur: number;
  args?: Record<string, unknown>;
}

export interface RankRow {
  rank: number;
  host: string;
  lanes: { cat: string; spans: Span[] }[]; // by CATEGORIES order
}

export const CATEGORIES = ["step", "phase", "comm", "lifecycle", "user", "metric"];
const catIndex = (c: string) => (CATEGORIES.includes(c) ? CATEGORIES.indexOf(c) : CATEGORIES.length);

// One row per rank (its restarts and threads joined), one lane per category of
// span; hosts from the process names ("rank 1 (host)").
export function timelineRows(trace: MergedTrace): { rows: RankRow[]; end: number } {
  const rows = new Map<number, RankRow>();
  const row = (rank: number) => {
    let r = rows.get(rank);
    if (!r) rows.set(rank, (r = { rank, host: "", lanes: [] }));
    return r;
  };
  let end = 0;
  for (const e of trace.traceEvents) {
    if (e.ph === "M") {
      const m = e.name === "process_name" ? /^rank \d+ \((.*)\)$/.exec(String(e.args?.name ?? "")) : null;
      if (m) row(e.pid).host = m[1];
      continue;
    }
    if (e.ph !== "X" && e.ph !== "i" && e.ph !== "I") continue;
    const r = row(e.pid);
    const cat = e.cat || "other";
    let lane = r.lanes.find((l) => l.cat === cat);
    if (!lane) r.lanes.push((lane = { cat, spans: [] }));
    const start = e.ts ?? 0;
    const dur = e.ph === "X" ? e.dur ?? 0 : 0;
    lane.spans.push({ name: e.name, cat, start, dur, args: e.args });
    end = Math.max(end, start + dur);
  }
  for (const r of rows.values()) {
    r.lanes.sort((a, b) => catIndex(a.cat) - catIndex(b.cat));
    for (const l of r.lanes) l.spans.sort((a, b) => a.start - b.start);
  }
  return { rows: [...rows.values()].sort((a, b) => a.rank - b.rank), end };
}
