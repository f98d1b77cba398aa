// One metric's chart over uPlot: a line per series, drag to zoom (double click
// for all), optional smoothing, a table of the last values under it, and PNG
// export with title and legend.
import uPlot from "uplot";
import { download, h } from "./dom";
import { number } from "./format";
import { align, smooth, type Series } from "./metrics";

export const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

export class MetricChart {
  readonly el: HTMLElement;
  private plot: uPlot | null = null;
  private host = h("div", { class: "chart-plot" });

  constructor(
    private name: string,
    private series: Series[],
    private xLabel: string,
    weight: number,
  ) {
    const last = h("table", { class: "last-values" },
      h("thead", null, h("tr", null, ...["series", "points", "last x", "last"].map((c) => h("th", null, c)))),
      h("tbody", null, ...series.map((s, i) => h("tr", { "data-series": s.label },
        h("td", null, h("span", { class: `swatch c${i % COLOURS.length}` }), s.label),
        h("td", { class: "num" }, s.y.length),
        h("td", { class: "num" }, s.x[s.x.length - 1]),
        h("td", { class: "num", "data-test": "last-value", "data-value": String(s.y[s.y.length - 1]) },
          number(s.y[s.y.length - 1], 6))))));
    this.el = h("figure", { class: "chart", "data-metric": name },
      h("figcaption", null, name,
        h("button", { class: "small", on: { click: () => this.savePng() } }, "PNG")),
      this.host, last);
    this.setSmoothing(weight);
  }

  setSmoothing(weight: number): void {
    const data = align(this.series.map((s) => ({ x: s.x, y: smooth(s.y, weight) })));
    if (this.plot) {
      this.plot.setData(data as uPlot.AlignedData);
      return;
    }
    const width = Math.max(320, (this.el.parentElement?.clientWidth ?? 640) - 16);
    this.plot = new uPlot({
      width: Math.min(width, 900),
      height: 260,
      scales: { x: { time: false } },
      axes: [{ label: this.xLabel }, { label: this.name, size: 60 }],
      series: [{ label: this.xLabel }, ...this.series.map((s, i) => ({
        label: s.label, stroke: COLOURS[i % COLOURS.length], width: 1.5, spanGaps: true,
        value: (_: uPlot, v: number | null) => (v === null ? "–" : number(v, 6)),
      }))],
      // Zoom by dragging; the cursor moves on every chart at once.
      cursor: { drag: { x: true, y: false }, sync: { key: "dlp-metrics" } },
    }, data as uPlot.AlignedData, this.host);
  }

  // The plot with a title and the legend, on white.
  private savePng(): void {
    if (!this.plot) return;
    const src = this.plot.ctx.canvas;
    const pad = 30;
    const legend = 18 * this.series.length + 10;
    const out = document.createElement("canvas");
    out.width = src.width;
    out.height = src.height + pad + legend;
    const g = out.getContext("2d")!;
    g.fillStyle = "#fff";
    g.fillRect(0, 0, out.width, out.height);
    g.fillStyle = "#222";
    g.font = "bold 16px system-ui, sans-serif";
    g.fillText(this.name, 10, 20);
    g.drawImage(src, 0, pad);
    g.font = "13px system-ui, sans-serif";
    this.series.forEach((s, i) => {
      const y = src.height + pad + 16 + i * 18;
      g.fillStyle = COLOURS[i % COLOURS.length];
      g.fillRect(10, y - 9, 24, 4);
      g.fillStyle = "#222";
      g.fillText(s.label, 40, y);
    });
    out.toBlob((b) => b && download(`${this.name}.png`, b), "image/png");
  }

  destroy(): void {
    this.plot?.destroy();
  }
}
