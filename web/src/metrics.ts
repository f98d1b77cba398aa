// Training metrics: `DLP_METRIC name=value step=N` lines on a replica's stdout
// (docs/profiling.md), read exactly as libdlp's ParseMetricLine reads them,
// plus smoothing, alignment for charts, and CSV in `dlp metrics -o csv`'s
// columns. Pure: tested in Node.

export interface LogLine {
  replica: string;
  stream: string;
  time: string;
  text: string;
}

export interface MetricPoint {
  replica: string;
  name: string;
  value: number;
  step: number; // -1 when the line names none
  time: string;
}

const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;
const INT = /^[+-]?\d+$/;

function toFloat(s: string): number {
  const l = s.toLowerCase().replace(/^\+/, "");
  if (l === "inf" || l === "infinity") return Infinity;
  if (l === "-inf" || l === "-infinity") return -Infinity;
  if (l === "nan" || l === "-nan") return NaN;
  return Number(s);
}

export function parseMetricLine(text: string): { name: string; value: number; step: number } | null {
  text = text.replace(/[\r ]+$/, "");
  if (!text.startsWith("DLP_METRIC ")) return null;
  const words = text.slice("DLP_METRIC ".length).split(" ").filter((w) => w !== "");
  if (words.length < 1 || words.length > 2) return null;
  const eq = words[0].indexOf("=");
  if (eq <= 0) return null;
  const name = words[0].slice(0, eq);
  const raw = words[0].slice(eq + 1);
  if (!FLOAT.test(raw)) return null;
  let step = -1;
  if (words.length === 2) {
    if (!words[1].startsWith("step=") || !INT.test(words[1].slice(5))) return null;
    step = Number(words[1].slice(5));
  }
  return { name, value: toFloat(raw), step };
}

export function metricFromLogLine(line: LogLine): MetricPoint | null {
  if (line.stream !== "stdout") return null;
  const p = parseMetricLine(line.text);
  return p && { ...p, replica: line.replica, time: line.time };
}

export interface Series {
  label: string; // "worker-0" or, with several jobs, "JOB/worker-0"
  name: string; // the metric
  x: number[];
  y: number[];
}

// One series per (replica, name), x = step (or seconds since the first point
// when `byTime`, or the line's index when no step was given).
export function toSeries(points: MetricPoint[], byTime = false): Series[] {
  const out = new Map<string, Series>();
  let t0 = Infinity;
  for (const p of points) t0 = Math.min(t0, Date.parse(p.time));
  for (const p of points) {
    const key = `${p.replica}\u0000${p.name}`;
    let s = out.get(key);
    if (!s) out.set(key, (s = { label: p.replica, name: p.name, x: [], y: [] }));
    const x = byTime ? (Date.parse(p.time) - t0) / 1000 : p.step >= 0 ? p.step : s.x.length;
    s.x.push(x);
    s.y.push(p.value);
  }
  // By replica, then name, as dlp metrics orders them (so colours stay put).
  const by = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...out.values()].sort((a, b) => by(a.label, b.label) || by(a.name, b.name));
}

// Which series a metric's chart holds per job, as `dlp metrics --replicas`:
// its lowest-rank replica (the default: rank 0, as a trainer logs), every
// replica, or the replicas' values combined at each x.
export type ReplicaSeries = "rank0" | "each" | "mean" | "min" | "max";
export const REPLICA_SERIES: ReplicaSeries[] = ["rank0", "each", "mean", "min", "max"];

// Roles in rank order, as libdlp's kRoles (spec/rules.h).
const ROLES = ["chief", "ps", "worker", "evaluator"];

function rankKey(replica: string): [number, number] {
  const dash = replica.lastIndexOf("-");
  const role = dash < 0 ? replica : replica.slice(0, dash);
  const index = dash < 0 ? 0 : Number(replica.slice(dash + 1)) || 0;
  const at = ROLES.indexOf(role);
  return [at < 0 ? ROLES.length : at, index];
}

// `series`: one metric's, from toSeries; several jobs' labels are "JOB/replica".
export function pickSeries(series: Series[], which: ReplicaSeries): Series[] {
  if (which === "each") return series;
  const byJob = new Map<string, Series[]>();
  for (const s of series) {
    const slash = s.label.indexOf("/");
    const job = slash < 0 ? "" : s.label.slice(0, slash + 1);
    const list = byJob.get(job);
    if (list) list.push(s);
    else byJob.set(job, [s]);
  }
  const out: Series[] = [];
  for (const [job, list] of byJob) {
    if (which === "rank0") {
      const key = (s: Series) => rankKey(s.label.slice(job.length));
      out.push(list.reduce((a, b) => {
        const [ka, kb] = [key(a), key(b)];
        return kb[0] < ka[0] || (kb[0] === ka[0] && kb[1] < ka[1]) ? b : a;
      }));
      continue;
    }
    const at = new Map<number, number[]>();
    for (const s of list) s.x.forEach((x, i) => (at.get(x) ?? at.set(x, []).get(x)!).push(s.y[i]));
    const xs = [...at.keys()].sort((a, b) => a - b);
    const combine = (v: number[]) =>
      which === "mean" ? v.reduce((a, b) => a + b, 0) / v.length : which === "min" ? Math.min(...v) : Math.max(...v);
    const n = list.length;
    out.push({ label: `${job}${which} of ${n} ${n === 1 ? "replica" : "replicas"}`, name: list[0].name,
      x: xs, y: xs.map((x) => combine(at.get(x)!)) });
  }
  return out;
}

// Exponential moving average with TensorBoard's debiasing, so the first points
// are not pulled towards 0. `weight` 0 leaves the values as they are.
export function smooth(y: number[], weight: number): number[] {
  if (weight <= 0) return y.slice();
  const out: number[] = [];
  let last = 0;
  let n = 0;
  for (const v of y) {
    if (!Number.isFinite(v)) {
      out.push(v);
      continue;
    }
    last = last * weight + (1 - weight) * v;
    n++;
    out.push(last / (1 - Math.pow(weight, n)));
  }
  return out;
}

// Series over one shared, sorted x axis (what uPlot draws): null where a
// series has no point.
export function align(series: { x: number[]; y: number[] }[]): (number | null)[][] {
  const xs = [...new Set(series.flatMap((s) => s.x))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const data: (number | null)[][] = [xs];
  for (const s of series) {
    const col: (number | null)[] = new Array(xs.length).fill(null);
    s.x.forEach((x, i) => (col[index.get(x)!] = Number.isFinite(s.y[i]) ? s.y[i] : null));
    data.push(col);
  }
  return data;
}

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(points: MetricPoint[]): string {
  let out = "replica,name,step,value,time\n";
  for (const p of points) {
    out += `${csvField(p.replica)},${csvField(p.name)},${p.step},${p.value},${p.time}\n`;
  }
  return out;
}
