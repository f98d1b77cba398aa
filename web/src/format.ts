// How times, durations and sizes read on every page.
import type { GpuShare } from "./types";

export function parseTime(s: string | null | undefined): number | null {
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : t;
}

// "45s", "3m 12s", "2h 05m", "3d 4h".
export function duration(ms: number): string {
  if (!(ms >= 0)) return "";
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  const hr = Math.floor(m / 60);
  if (hr < 24) return `${hr}h ${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(hr / 24)}d ${hr % 24}h`;
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !(n >= 0)) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 && i > 0 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function number(v: number, digits = 4): string {
  if (!Number.isFinite(v)) return String(v);
  if (v !== 0 && (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3)) return v.toExponential(2);
  return String(Number(v.toPrecision(digits)));
}

// A replica's GPUs as `dlp describe` shows them: "0, 1", "0 (0.5)", "MIG-...".
export function gpuShares(shares: readonly GpuShare[] | undefined): string {
  return (shares ?? [])
    .map((s) => (s.millis < 1000 ? `${s.device} (${s.millis / 1000})` : s.device))
    .join(", ");
}
