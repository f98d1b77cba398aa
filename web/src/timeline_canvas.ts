// The merged per-rank timeline drawn on a canvas: one row per rank, one lane
// per category inside it (steps, phases, collectives, ...). Wheel zooms
// around the pointer, dragging pans, a double click shows everything again;
// hovering a span names it.
import { h } from "./dom";
import { number } from "./format";
import type { RankRow, Span } from "./trace";

const LANE = 16;
const ROW_GAP = 8;
const AXIS = 22;
const LABEL = 130;

const CAT_COLOURS: Record<string, string> = {
  step: "#8da0cb", comm: "#e78ac3", lifecycle: "#a6a6a6", user: "#ffd92f", metric: "#b3b3b3",
};
const PHASE_COLOURS: Record<string, string> = {
  data: "#66c2a5", forward: "#fc8d62", backward: "#e5c494", optimizer: "#a6d854",
};

function colour(s: Span): string {
  if (s.cat === "phase") return PHASE_COLOURS[s.name] ?? "#b3de69";
  return CAT_COLOURS[s.cat] ?? "#80b1d3";
}

function timeLabel(us: number): string {
  if (Math.abs(us) >= 1e6) return `${number(us / 1e6, 4)} s`;
  if (Math.abs(us) >= 1e3) return `${number(us / 1e3, 4)} ms`;
  return `${number(us, 4)} µs`;
}

export class Timeline {
  readonly el: HTMLElement;
  private canvas = h("canvas", { "data-test": "timeline-canvas" });
  private tip = h("div", { class: "tip", hidden: true });
  private labels = h("div", { class: "timeline-labels" });
  private t0 = 0;
  private t1 = 1;
  private tops: number[] = [];

  constructor(
    private rows: RankRow[],
    private end: number,
  ) {
    this.t1 = Math.max(end, 1);
    this.el = h("div", { class: "timeline", "data-ranks": String(rows.length) }, this.canvas, this.labels, this.tip);
    let y = AXIS;
    for (const r of rows) {
      this.tops.push(y);
      const label = h("div", { class: "timeline-row", "data-test": "timeline-row", "data-rank": String(r.rank) },
        `rank ${r.rank}`, r.host ? h("span", { class: "muted" }, ` ${r.host}`) : null);
      label.style.top = `${y}px`;
      label.style.height = `${Math.max(1, r.lanes.length) * LANE}px`;
      this.labels.appendChild(label);
      y += Math.max(1, r.lanes.length) * LANE + ROW_GAP;
    }
    this.canvas.style.height = `${y}px`;
    this.listen();
    new ResizeObserver(() => this.draw()).observe(this.el);
  }

  reset(): void {
    this.t0 = 0;
    this.t1 = Math.max(this.end, 1);
    this.draw();
  }

  private x(t: number, width: number): number {
    return LABEL + ((t - this.t0) / (this.t1 - this.t0)) * (width - LABEL);
  }

  private timeAt(px: number): number {
    const width = this.canvas.clientWidth;
    return this.t0 + ((px - LABEL) / (width - LABEL)) * (this.t1 - this.t0);
  }

  draw(): void {
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    if (!width || !height) return;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = width * dpr;
    this.canvas.height = height * dpr;
    const g = this.canvas.getContext("2d")!;
    g.scale(dpr, dpr);
    g.clearRect(0, 0, width, height);
    g.font = "11px system-ui, sans-serif";
    // Axis: about one tick every 100 px, at round numbers.
    const span = this.t1 - this.t0;
    const raw = span / Math.max(1, (width - LABEL) / 100);
    const pow = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
    g.fillStyle = "#666";
    g.strokeStyle = "#e4e4e4";
    for (let t = Math.ceil(this.t0 / step) * step; t <= this.t1; t += step) {
      const x = this.x(t, width);
      g.beginPath();
      g.moveTo(x, AXIS - 4);
      g.lineTo(x, height);
      g.stroke();
      g.fillText(timeLabel(t), x + 2, 12);
    }
    this.rows.forEach((r, i) => {
      r.lanes.forEach((lane, li) => {
        const y = this.tops[i] + li * LANE;
        g.fillStyle = li % 2 ? "#fafafa" : "#f3f3f3";
        g.fillRect(LABEL, y, width - LABEL, LANE - 1);
        g.fillStyle = "#999";
        g.fillText(lane.cat, LABEL - 60, y + 12);
        for (const s of lane.spans) {
          if (s.start > this.t1 || s.start + s.dur < this.t0) continue;
          const x0 = Math.max(LABEL, this.x(s.start, width));
          const x1 = Math.min(width, this.x(s.start + s.dur, width));
          g.fillStyle = colour(s);
          g.fillRect(x0, y + 1, Math.max(1, x1 - x0), LANE - 3);
          if (x1 - x0 > 40) {
            g.fillStyle = "#222";
            g.fillText(s.name, x0 + 3, y + 12, x1 - x0 - 6);
          }
        }
      });
    });
  }

  private spanAt(px: number, py: number): Span | null {
    const t = this.timeAt(px);
    const slack = ((this.t1 - this.t0) / this.canvas.clientWidth) * 2;
    for (let i = 0; i < this.rows.length; i++) {
      const li = Math.floor((py - this.tops[i]) / LANE);
      const lane = this.rows[i].lanes[li];
      if (!lane || py < this.tops[i]) continue;
      // The innermost span under the pointer (spans are by start).
      let found: Span | null = null;
      for (const s of lane.spans) {
        if (s.start > t + slack) break;
        if (s.start + s.dur + slack >= t) found = s;
      }
      return found;
    }
    return null;
  }

  private listen(): void {
    const c = this.canvas;
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      const at = this.timeAt(e.offsetX);
      const k = Math.exp(e.deltaY * 0.002);
      const minSpan = 1; // 1 µs
      const t0 = at - (at - this.t0) * k;
      const t1 = at + (this.t1 - at) * k;
      if (t1 - t0 < minSpan) return;
      this.t0 = Math.max(0, t0);
      this.t1 = Math.min(Math.max(this.end, 1), t1);
      this.draw();
    }, { passive: false });
    let drag: { x: number; t0: number; t1: number } | null = null;
    c.addEventListener("mousedown", (e) => (drag = { x: e.offsetX, t0: this.t0, t1: this.t1 }));
    window.addEventListener("mouseup", () => (drag = null));
    c.addEventListener("mousemove", (e) => {
      if (drag) {
        const dt = ((e.offsetX - drag.x) / (c.clientWidth - LABEL)) * (drag.t1 - drag.t0);
        this.t0 = drag.t0 - dt;
        this.t1 = drag.t1 - dt;
        this.draw();
        return;
      }
      const s = this.spanAt(e.offsetX, e.offsetY);
      this.tip.hidden = !s;
      if (!s) return;
      const args = s.args ? Object.entries(s.args).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`) : [];
      this.tip.textContent = `${s.cat} ${s.name}: ${timeLabel(s.dur)} at ${timeLabel(s.start)}${args.length ? "\n" + args.join(" ") : ""}`;
      this.tip.style.left = `${e.offsetX + 12}px`;
      this.tip.style.top = `${e.offsetY + 12}px`;
    });
    c.addEventListener("mouseleave", () => (this.tip.hidden = true));
    c.addEventListener("dblclick", () => this.reset());
  }
}
