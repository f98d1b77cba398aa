// Per-rank Chrome trace files (docs/profiling.md) read as `dlp profile` reads
// them (libdlp/src/profile: trace_events.cc, merge.cc, summary.cc): tolerant
// line-by-line parsing, clock offsets onto rank 0's clock, the merged trace
// for Perfetto, and the per-rank step summary with the straggler.
// Pure: tested in Node.
import type { TraceFile } from "./types";

export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number; // µs, the file's own clock
  dur: number;
  tid: number;
  args?: Record<string, unknown>;
}

export interface RankTrace {
  file: string;
  rank: number;
  restart: number;
  host: string;
  offsetUs: number;
  events: TraceEvent[]; // X, i/I and C events, by start
}

type Obj = Record<string, unknown>;
const str = (o: Obj, k: string, d: string) => (typeof o[k] === "string" ? (o[k] as string) : d);
const num = (o: Obj, k: string, d: number) => (typeof o[k] === "number" ? (o[k] as number) : d);
const int = (o: Obj, k: string, d: number) => (Number.isInteger(o[k]) ? (o[k] as number) : d);
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function add(t: RankTrace, e: unknown): void {
  if (!isObj(e)) return;
  const ev: TraceEvent = {
    name: str(e, "name", ""), cat: str(e, "cat", ""), ph: str(e, "ph", ""),
    ts: num(e, "ts", 0), dur: num(e, "dur", 0), tid: int(e, "tid", 0),
  };
  if (isObj(e.args)) ev.args = e.args;
  if (ev.ph === "M") {
    const a = ev.args ?? {};
    if (ev.name === "dlp_meta") {
      t.rank = int(a, "rank", t.rank);
      t.restart = int(a, "restart", t.restart);
      t.host = str(a, "host", t.host);
    } else if (ev.name === "dlp_clock_offset") {
      t.offsetUs = num(a, "offset_us", 0);
    }
    return;
  }
  if (t.rank < 0) t.rank = int(e, "pid", t.rank);
  if (["X", "i", "I", "C"].includes(ev.ph)) t.events.push(ev);
}

function tryParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

export function parseTraceFile(f: TraceFile): RankTrace {
  const t: RankTrace = { file: f.name, rank: -1, restart: 0, host: "", offsetUs: 0, events: [] };
  const m = /rank-(\d+)(?:\.restart-(\d+))?\.trace\.json/.exec(f.name);
  if (m?.[2]) t.restart = Number(m[2]);
  const whole = tryParse(f.content);
  if (Array.isArray(whole)) whole.forEach((e) => add(t, e));
  else if (isObj(whole) && Array.isArray(whole.traceEvents)) whole.traceEvents.forEach((e) => add(t, e));
  else {
    // Still being written, or left by a process that died: one event a line.
    for (let line of f.content.split("\n")) {
      line = line.replace(/[ \r]+$/, "");
      if (line.startsWith("[")) line = line.slice(1);
      if (line.endsWith("]")) line = line.slice(0, -1);
      if (line.endsWith(",")) line = line.slice(0, -1);
      if (!line) continue;
      const e = tryParse(line);
      if (e !== undefined) add(t, e);
    }
  }
  if (t.rank < 0) t.rank = m ? Number(m[1]) : 0;
  t.events.sort((a, b) => a.ts - b.ts);
  return t;
}

export function parseTraceFiles(files: TraceFile[]): RankTrace[] {
  return files.map(parseTraceFile).sort((a, b) => a.rank - b.rank || a.restart - b.restart);
}

// ---- The merged timeline ----

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

function origin(traces: RankTrace[]): number {
  let o = Infinity;
  for (const t of traces) for (const e of t.events) o = Math.min(o, e.ts + t.offsetUs);
  return o;
}

// One row per rank (restarts joined), one lane per category of span.
export function timelineRows(traces: RankTrace[]): { rows: RankRow[]; end: number } {
  const o = origin(traces);
  const rows = new Map<number, RankRow>();
  let end = 0;
  for (const t of traces) {
    let row = rows.get(t.rank);
    if (!row) rows.set(t.rank, (row = { rank: t.rank, host: t.host, lanes: [] }));
    if (t.host) row.host = t.host;
    for (const e of t.events) {
      if (e.ph !== "X" && e.ph !== "i" && e.ph !== "I") continue;
      const cat = e.cat || "other";
      let lane = row.lanes.find((l) => l.cat === cat);
      if (!lane) row.lanes.push((lane = { cat, spans: [] }));
      const start = e.ts + t.offsetUs - o;
      lane.spans.push({ name: e.name, cat, start, dur: e.ph === "X" ? e.dur : 0, args: e.args });
      end = Math.max(end, start + (e.ph === "X" ? e.dur : 0));
    }
  }
  for (const row of rows.values()) row.lanes.sort((a, b) => catIndex(a.cat) - catIndex(b.cat));
  return { rows: [...rows.values()].sort((a, b) => a.rank - b.rank), end };
}

// One Chrome trace of every file, as `dlp profile --trace` writes it: pid =
// rank, a track per category and thread, offsets applied, time 0 = first event.
export function mergeTraces(traces: RankTrace[]): string {
  const o = origin(traces);
  const out: unknown[] = [];
  const tracks = new Map<string, [number, number, string]>();
  const processes = new Map<number, string>();
  for (const t of traces) {
    processes.set(t.rank, t.host ? `rank ${t.rank} (${t.host})` : `rank ${t.rank}`);
    for (const e of t.events) {
      const tid = catIndex(e.cat) * 100 + e.tid;
      tracks.set(`${t.rank}/${tid}`, [t.rank, tid, (e.cat || "other") + (e.tid ? ` (thread ${e.tid})` : "")]);
      const j: Obj = { name: e.name, ph: e.ph, pid: t.rank, tid, ts: e.ts + t.offsetUs - o };
      if (e.cat) j.cat = e.cat;
      if (e.ph === "X") j.dur = e.dur;
      if (e.ph === "i" || e.ph === "I") j.s = "t";
      if (e.args) j.args = t.restart > 0 ? { ...e.args, restart: t.restart } : e.args;
      out.push(j);
    }
  }
  for (const [rank, name] of [...processes].sort((a, b) => a[0] - b[0])) {
    out.push({ name: "process_name", ph: "M", pid: rank, tid: 0, args: { name } });
    out.push({ name: "process_sort_index", ph: "M", pid: rank, tid: 0, args: { sort_index: rank } });
  }
  for (const [rank, tid, name] of tracks.values()) {
    out.push({ name: "thread_name", ph: "M", pid: rank, tid, args: { name } });
    out.push({ name: "thread_sort_index", ph: "M", pid: rank, tid, args: { sort_index: tid } });
  }
  return JSON.stringify({ traceEvents: out, displayTimeUnit: "ms" });
}

// ---- The summary ----

export interface RankSummary {
  rank: number;
  host: string;
  steps: number;
  stepP50Ms: number;
  stepP95Ms: number;
  stepMaxMs: number;
  commMs: number; // per step, inside collectives
  workMs: number; // per step, outside them
  phasesMs: Record<string, number>;
}

export interface Straggler {
  rank: number;
  ratio: number;
  phase: string;
  message: string;
}

function percentile(v: number[], p: number): number {
  if (!v.length) return 0;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(Math.floor(p * (s.length - 1) + 0.5), s.length - 1)];
}

const PHASE_WORDS: Record<string, string> = { data: "data loading", optimizer: "optimizer step" };

// Steps are "step" spans; "phase" and "comm" spans inside them count towards
// them. The straggler is the rank with the most work per step (collective
// waits excluded), when at least `threshold` × the median.
export function summarize(traces: RankTrace[], threshold = 1.1): { ranks: RankSummary[]; straggler: Straggler | null } {
  const acc = new Map<number, { host: string; steps: number[]; comm: number; phases: Record<string, number> }>();
  for (const t of traces) {
    let a = acc.get(t.rank);
    if (!a) acc.set(t.rank, (a = { host: "", steps: [], comm: 0, phases: {} }));
    if (t.host) a.host = t.host;
    const steps = t.events.filter((e) => e.ph === "X" && e.cat === "step");
    const inner = t.events.filter((e) => e.ph === "X" && (e.cat === "comm" || e.cat === "phase"));
    let j = 0;
    for (const s of steps) {
      while (j < inner.length && inner[j].ts < s.ts) j++;
      for (let k = j; k < inner.length && inner[k].ts < s.ts + s.dur; k++) {
        if (inner[k].cat === "comm") a.comm += inner[k].dur / 1e3;
        else a.phases[inner[k].name] = (a.phases[inner[k].name] ?? 0) + inner[k].dur / 1e3;
      }
      a.steps.push(s.dur / 1e3);
    }
  }
  const ranks: RankSummary[] = [...acc].sort((x, y) => x[0] - y[0]).map(([rank, a]) => {
    const n = a.steps.length;
    const sum = a.steps.reduce((x, y) => x + y, 0);
    const phasesMs: Record<string, number> = {};
    for (const [k, v] of Object.entries(a.phases)) phasesMs[k] = n ? v / n : 0;
    return {
      rank, host: a.host, steps: n,
      stepP50Ms: percentile(a.steps, 0.5), stepP95Ms: percentile(a.steps, 0.95),
      stepMaxMs: n ? Math.max(...a.steps) : 0,
      commMs: n ? a.comm / n : 0, workMs: n ? (sum - a.comm) / n : 0, phasesMs,
    };
  });
  const withSteps = ranks.filter((r) => r.steps > 0);
  const median = percentile(withSteps.map((r) => r.workMs), 0.5);
  const slow = withSteps.reduce<RankSummary | null>((m, r) => (!m || r.workMs > m.workMs ? r : m), null);
  if (!slow || withSteps.length < 2 || median <= 0 || slow.workMs < threshold * median) {
    return { ranks, straggler: null };
  }
  let phase = "";
  let excess = 0;
  for (const [name, ms] of Object.entries(slow.phasesMs)) {
    const others = ranks.filter((r) => name in r.phasesMs).map((r) => r.phasesMs[name]);
    const e = ms - percentile(others, 0.5);
    if (e > excess) [excess, phase] = [e, name];
  }
  const ratio = slow.workMs / median;
  let message = `rank ${slow.rank} is ${ratio.toFixed(2)}× the median step time (excluding collective waits)`;
  if (phase) message += `: ${PHASE_WORDS[phase] ?? phase}`;
  return { ranks, straggler: { rank: slow.rank, ratio, phase, message } };
}
