// A small line chart on a canvas for the last few minutes of a value.
import { h } from "./dom";

export class Sparkline {
  readonly el: HTMLCanvasElement;

  constructor(
    private width = 160,
    private height = 32,
  ) {
    this.el = h("canvas", { class: "spark" });
    this.el.style.width = `${width}px`;
    this.el.style.height = `${height}px`;
  }

  // `max`: the top of the scale (e.g. 100 for a percentage); else the data's.
  draw(values: (number | null)[], max?: number): void {
    const dpr = window.devicePixelRatio || 1;
    this.el.width = this.width * dpr;
    this.el.height = this.height * dpr;
    const g = this.el.getContext("2d")!;
    g.scale(dpr, dpr);
    g.clearRect(0, 0, this.width, this.height);
    const vs = values.filter((v): v is number => v !== null && Number.isFinite(v));
    if (!vs.length) return;
    const top = Math.max(max ?? 0, ...vs) || 1;
    const n = Math.max(values.length - 1, 1);
    g.strokeStyle = "#1f77b4";
    g.fillStyle = "rgba(31,119,180,0.15)";
    g.lineWidth = 1.5;
    g.beginPath();
    let started = false;
    values.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) return;
      const x = (i / n) * (this.width - 2) + 1;
      const y = this.height - 1 - (v / top) * (this.height - 2);
      if (started) g.lineTo(x, y);
      else g.moveTo(x, y);
      started = true;
    });
    g.stroke();
  }
}
