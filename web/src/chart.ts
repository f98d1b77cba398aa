// One metric's chart over uPlot: a line per series, drag to zoom (double click
// for all), optional smoothing and log scale, a table of the last values under
// it, and PNG export with title and legend. The look of `dlp metrics --png`:
// the palette of libdlp's chart_palette.h, series past ten colours dashed then
// dotted, marks at each point of series of 40 points or fewer.
import uPlot from "uplot";
import { download, h } from "./dom";
import { number } from "./format";
import { align, smooth, type Series } from "./metrics";

export const COLOURS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
const DASHES: (number[] | undefined)[] = [undefined, [6, 4], [1.5, 3]];
const MARKERS_UP_TO = 40;

const dash = (i: number) => DASHES[Math.floor(i / COLOURS.length) % DASHES.length];

export class MetricChart {
  readonly el: HTMLElement;
  private plot: uPlot | null = null;
  private host = h("div", { class: "chart-plot" });

  constructor(
    private name: string,
    private series: Series[],
    private xLabel: string,
    weight: number,
    private logY = false,
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
    // A log axis draws positive values only.
    const y = (v: number[]) => (this.logY ? v.map((n) => (n > 0 ? n : NaN)) : v);
    const data = align(this.series.map((s) => ({ x: s.x, y: y(smooth(s.y, weight)) })));
    if (this.plot) {
      this.plot.setData(data as uPlot.AlignedData);
      return;
    }
    const width = Math.max(320, (this.el.parentElement?.clientWidth ?? 640) - 16);
    this.plot = new uPlot({
      width: Math.min(width, 900),
      height: 260,
      scales: { x: { time: false }, y: this.logY ? { distr: 3 } : {} },
      axes: [{ label: this.xLabel }, { label: this.logY ? `${this.name} (log scale)` : this.name, size: 60 }],
      series: [{ label: this.xLabel }, ...this.series.map((s, i) => ({
        label: s.label, stroke: COLOURS[i % COLOURS.length], dash: dash(i), width: 1.5, spanGaps: true,
        points: { show: s.x.length <= MARKERS_UP_TO },
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
