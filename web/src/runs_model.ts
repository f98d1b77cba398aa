// The runs table's view (columns, conditions, sort: what the URL keeps), the
// names of runs in comparisons (their name and the parameters that differ
// between them), the layers of a pipeline's DAG and the axes of a parallel-
// coordinates chart. Pure: tested in Node.
import type { RunValue } from "./types";

export interface RunsView {
  columns: string[]; // label.KEY, param.NAME, metric.NAME[:last|min|max]
  where: string[]; // "metric.test_accuracy>0.85"
  sort: string; // "-metric.loss"; "" newest first
  state: string;
}

const list = (s: string | null) => (s ?? "").split(",").map((c) => c.trim()).filter(Boolean);

export function viewFromQuery(q: URLSearchParams): RunsView {
  return { columns: list(q.get("columns")), where: q.getAll("where").filter(Boolean), sort: q.get("sort") ?? "", state: q.get("state") ?? "" };
}

export function viewToQuery(v: RunsView): URLSearchParams {
  const q = new URLSearchParams();
  if (v.columns.length) q.set("columns", v.columns.join(","));
  for (const w of v.where) q.append("where", w);
  if (v.sort) q.set("sort", v.sort);
  if (v.state) q.set("state", v.state);
  return q;
}

// Whether the view needs dlpd's runs query (else the plain live job list).
export const isRunsView = (v: RunsView) => v.columns.length > 0 || v.where.length > 0 || v.sort !== "";

// Conditions as typed in one box: separated by spaces, commas or " and ".
export const parseWhere = (text: string) => text.split(/\s+and\s+|[\s,]+/i).map((w) => w.trim()).filter(Boolean);

// Clicking a column's header: newest first → descending → ascending → off.
export function nextSort(current: string, column: string): string {
  if (current === `-${column}`) return column;
  if (current === column) return "";
  return `-${column}`;
}

// Columns to offer as the user types: the labels and trial parameters of the
// runs in view, the metrics sweeps optimise, the columns already shown.
export function columnSuggestions(runs: Described[], metrics: string[], shown: string[]): string[] {
  const out = new Set(shown);
  for (const r of runs) {
    for (const k of Object.keys(r.params ?? {})) out.add(`param.${k}`);
    for (const k of Object.keys(r.labels ?? {})) out.add(`label.${k}`);
  }
  for (const m of metrics) for (const stat of ["", ":min", ":max"]) out.add(`metric.${m}${stat}`);
  return [...out].sort();
}

export function cellText(v: RunValue | undefined): string {
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(5)));
  return v;
}

// What sets runs apart in a comparison: their parameters (a trial's) and
// labels, "param.lr" and "label.team", with each run's value ("" if none).
export interface Described {
  name: string;
  params?: Record<string, string | undefined>;
  labels?: Record<string, string | undefined>;
}

export function facts(run: Described): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(run.params ?? {})) if (v !== undefined) out.set(k, v);
  for (const [k, v] of Object.entries(run.labels ?? {})) {
    if (v !== undefined && !k.startsWith("dlp.dev/")) out.set(`label.${k}`, v);
  }
  return out;
}

// The keys whose values are not the same in every run, in a stable order.
export function differing(runs: Described[]): string[] {
  const all = runs.map(facts);
  const keys = [...new Set(all.flatMap((f) => [...f.keys()]))].sort();
  return keys.filter((k) => new Set(all.map((f) => f.get(k) ?? "")).size > 1);
}

// "lr-sweep-3 lr=0.01 layers=2": the run's name and what differs (the name
// alone when nothing does).
export function seriesName(run: Described, keys: string[]): string {
  const f = facts(run);
  const parts = keys.filter((k) => f.has(k)).map((k) => `${k}=${f.get(k)}`);
  return [run.name, ...parts].join(" ");
}

// A DAG's layers: each node one deeper than the deepest node it depends on.
export function layers(nodes: { name: string; dependsOn: string[] }[]): Map<string, number> {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const depth = new Map<string, number>();
  const visit = (name: string, seen: Set<string>): number => {
    const known = depth.get(name);
    if (known !== undefined) return known;
    if (seen.has(name)) return 0; // a cycle cannot be submitted; drawn flat if one came
    seen.add(name);
    const deps = byName.get(name)?.dependsOn.filter((d) => byName.has(d)) ?? [];
    const d = deps.length ? 1 + Math.max(...deps.map((x) => visit(x, seen))) : 0;
    depth.set(name, d);
    return d;
  };
  for (const n of nodes) visit(n.name, new Set());
  return depth;
}

// One vertical axis of a parallel-coordinates chart: numbers (on a log
// scale for logfloat parameters) or categories, spread from 0 (bottom) to 1.
export interface Axis {
  name: string;
  log: boolean;
  min: number;
  max: number;
  categories: string[] | null;
}

export function makeAxis(name: string, values: string[], log = false, categorical = false): Axis {
  const numbers = values.map(Number);
  if (!categorical && numbers.every((v) => Number.isFinite(v) && (!log || v > 0))) {
    const t = numbers.map((v) => (log ? Math.log10(v) : v));
    return { name, log, min: Math.min(...t), max: Math.max(...t), categories: null };
  }
  return { name, log: false, min: 0, max: 0, categories: [...new Set(values)].sort() };
}

export function position(axis: Axis, value: string | number): number {
  if (axis.categories) {
    const n = axis.categories.length;
    return n <= 1 ? 0.5 : axis.categories.indexOf(String(value)) / (n - 1);
  }
  const v = axis.log ? Math.log10(Number(value)) : Number(value);
  return axis.max === axis.min ? 0.5 : (v - axis.min) / (axis.max - axis.min);
}
