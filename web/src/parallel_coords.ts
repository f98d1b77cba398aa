// A parallel-coordinates chart of a sweep: one vertical axis per parameter
// and one for the objective, one line per trial through its values, coloured
// from the worst objective (light) to the best (dark); drawn as SVG.
import { svg } from "./dom";
import { number } from "./format";
import { makeAxis, position, type Axis } from "./runs_model";
import type { Sweep } from "./types";

const W = 760;
const H = 300;
const PAD = { top: 30, bottom: 30, side: 60 };

export function parallelCoordinates(sweep: Sweep): SVGElement {
  const trials = sweep.trials.filter((t) => t.objective !== null && Number.isFinite(t.objective));
  const params = sweep.spec.parameters;
  const axes: Axis[] = params.map((p) => makeAxis(p.name, trials.map((t) => t.params[p.name] ?? ""), p.type === "logfloat", p.type === "categorical"));
  const objective = sweep.spec.objective;
  axes.push(makeAxis(objective.metric, trials.map((t) => String(t.objective))));
  const n = axes.length;
  const x = (i: number) => (n === 1 ? W / 2 : PAD.side + (i * (W - 2 * PAD.side)) / (n - 1));
  const y = (f: number) => H - PAD.bottom - f * (H - PAD.top - PAD.bottom);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "parallel", "data-test": "parallel", role: "img", "aria-label": "parameters against the objective" });
  const obj = axes[n - 1];
  const maximize = objective.goal !== "minimize";
  for (const t of trials) {
    const values = [...params.map((p) => t.params[p.name] ?? ""), t.objective!];
    const d = values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(position(axes[i], v)).toFixed(1)}`).join(" ");
    const goodness = position(obj, t.objective!);
    const shade = Math.round(4 * (maximize ? goodness : 1 - goodness));
    root.append(svg("path", { d, class: `pc-line pc${shade}`, "data-trial": t.trial, "data-objective": String(t.objective) },
      svg("title", {}, `trial ${t.trial}: ${params.map((p) => `${p.name}=${t.params[p.name]}`).join(" ")} → ${t.objective}`)));
  }
  axes.forEach((a, i) => {
    const ticks = a.categories ?? [a.log ? 10 ** a.max : a.max, a.log ? 10 ** a.min : a.min].map((v) => number(v, 4));
    root.append(svg("line", { x1: x(i), x2: x(i), y1: y(0), y2: y(1), class: "pc-axis" }),
      svg("text", { x: x(i), y: PAD.top - 12, class: "pc-name", "data-axis": a.name }, a.name),
      ...(a.categories
        ? a.categories.map((c) => svg("text", { x: x(i) + 4, y: y(position(a, c)) + 4, class: "pc-tick" }, c))
        : [svg("text", { x: x(i) + 4, y: y(1) + 4, class: "pc-tick" }, ticks[0]), svg("text", { x: x(i) + 4, y: y(0) + 4, class: "pc-tick" }, ticks[1])]));
  });
  return root;
}
