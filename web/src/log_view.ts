// A job's logs as they arrive: the NDJSON stream of GET /v1/jobs/ID/logs
// (follow=1, which ends once the job has ended and every line was sent), one
// colour per replica, ANSI colours drawn as styled text nodes (never HTML),
// pause/resume, download, and a virtual list so 100,000 lines stay fast.
import { parseAnsi, stripAnsi, type Style } from "./ansi";
import { openLogs } from "./api";
import { download, h } from "./dom";
import type { LogLine } from "./metrics";
import { readNdjson } from "./ndjson";
import { VirtualList } from "./virtual_list";

const ROW = 18;

function styled(text: string, style: Style): HTMLElement {
  const span = h("span", null, text);
  const fg = style.inverse ? style.bg : style.fg;
  const bg = style.inverse ? (style.fg ?? 7) : style.bg;
  // Palette colours are classes; 256-colour and RGB ones go through CSSOM.
  if (typeof fg === "number") span.classList.add(`fg${fg}`);
  else if (fg) span.style.color = fg;
  if (typeof bg === "number") span.classList.add(`bg${bg}`);
  else if (bg) span.style.backgroundColor = bg;
  if (style.bold) span.classList.add("b");
  if (style.dim) span.classList.add("dim");
  if (style.italic) span.classList.add("i");
  if (style.underline) span.classList.add("u");
  return span;
}

export class LogView {
  readonly el: HTMLElement;
  private lines: LogLine[] = [];
  private replicaIndex = new Map<string, number>();
  private shownCount = 0;
  private paused = false;
  private abort: AbortController | null = null;
  private list: VirtualList;
  private status = h("span", { class: "muted", "data-test": "log-status" });
  private pauseButton: HTMLButtonElement;
  private select: HTMLSelectElement;
  private metrics: HTMLInputElement;
  private frame = 0;

  constructor(
    private jobId: string,
    replicas: string[],
  ) {
    replicas.forEach((r, i) => this.replicaIndex.set(r, i));
    this.select = h("select", { "aria-label": "replica", "data-test": "log-replica" },
      h("option", { value: "" }, "all replicas"), ...replicas.map((r) => h("option", { value: r }, r)));
    this.select.addEventListener("change", () => this.open());
    // DLP_METRIC lines are left out, as by `dlp logs`, unless asked for.
    this.metrics = h("input", { type: "checkbox", "data-test": "log-metrics" });
    this.metrics.addEventListener("change", () => this.open());
    this.pauseButton = h("button", { "data-test": "log-pause", on: { click: () => this.togglePause() } }, "Pause");
    const save = h("button", { on: { click: () => this.save() } }, "Download");
    this.list = new VirtualList(ROW, (i) => this.row(i), "logs");
    this.list.el.setAttribute("data-test", "log-view");
    this.el = h("section", { class: "log-panel" },
      h("div", { class: "toolbar" }, h("h2", null, "Logs"), this.select,
        h("label", null, this.metrics, " metrics"), this.pauseButton, save, this.status),
      this.list.el);
  }

  private colourOf(replica: string): number {
    let i = this.replicaIndex.get(replica);
    if (i === undefined) this.replicaIndex.set(replica, (i = this.replicaIndex.size));
    return i % 8;
  }

  private row(i: number): HTMLElement {
    const l = this.lines[i];
    const row = h("div", { class: l.stream === "stderr" ? "log-line stderr" : "log-line" },
      h("span", { class: `rep rep${this.colourOf(l.replica)}`, title: l.time }, l.replica));
    for (const seg of parseAnsi(l.text)) row.appendChild(styled(seg.text, seg.style));
    return row;
  }

  // (Re)opens the stream for the chosen replica; the lines so far are dropped.
  open(): void {
    this.close();
    this.lines = [];
    this.shownCount = 0;
    this.list.setCount(0, true);
    const abort = (this.abort = new AbortController());
    this.setStatus("following…", "following");
    const replica = this.select.value || undefined;
    openLogs(this.jobId, { replica, follow: true, metrics: this.metrics.checked }, abort.signal)
      .then((res) => readNdjson<LogLine>(res.body!, (l) => this.add(l)))
      .then(
        () => {
          this.flush();
          this.setStatus(`${this.lines.length} lines, stream ended`, "ended");
        },
        (e) => {
          if (abort.signal.aborted) return;
          this.flush();
          this.setStatus(`stream failed: ${e instanceof Error ? e.message : e}`, "failed");
        },
      );
  }

  close(): void {
    this.abort?.abort();
    this.abort = null;
    cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  private setStatus(text: string, state: string): void {
    this.status.textContent = text;
    this.el.setAttribute("data-stream", state);
  }

  private add(l: LogLine): void {
    if (typeof l?.text !== "string") return;
    this.lines.push(l);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  // Shows the lines that arrived since the last frame; keeps the view at the
  // end when it was there.
  private flush(): void {
    this.frame = 0;
    if (this.paused) {
      this.pauseButton.textContent = `Resume (${this.lines.length - this.shownCount} new)`;
      return;
    }
    const follow = this.shownCount === 0 || this.list.atEnd();
    this.shownCount = this.lines.length;
    this.list.setCount(this.shownCount);
    this.list.el.setAttribute("data-lines", String(this.shownCount));
    if (follow) this.list.scrollToEnd();
    this.list.draw();
  }

  private togglePause(): void {
    this.paused = !this.paused;
    this.pauseButton.textContent = this.paused ? "Resume" : "Pause";
    this.el.classList.toggle("paused", this.paused);
    if (!this.paused) {
      this.flush();
      this.list.scrollToEnd();
    }
  }

  private save(): void {
    const text = this.lines.map((l) => `${l.time} ${l.replica} ${stripAnsi(l.text)}\n`).join("");
    download(`job-${this.jobId}${this.select.value ? `-${this.select.value}` : ""}.log`,
      new Blob([text], { type: "text/plain" }));
  }
}
