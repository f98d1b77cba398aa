// A scrolling list that creates DOM nodes only for the rows in view (plus a
// margin), so 10,000 jobs or 100,000 log lines cost as much as a screenful.
// Rows have one fixed height; positions are set through CSSOM (allowed by
// dlpd's CSP, unlike style attributes).
import { h } from "./dom";

export class VirtualList {
  readonly el: HTMLDivElement;
  private spacer: HTMLDivElement;
  private count = 0;
  private shown = new Map<number, HTMLElement>();
  private frame = 0;

  constructor(
    private rowHeight: number,
    private renderRow: (index: number) => HTMLElement,
    className = "",
  ) {
    this.spacer = h("div", { class: "vl-spacer" });
    this.el = h("div", { class: `vl ${className}`, tabindex: "0" }, this.spacer);
    this.el.addEventListener("scroll", () => this.schedule());
    new ResizeObserver(() => this.schedule()).observe(this.el);
  }

  get length(): number {
    return this.count;
  }

  // New row count; rows already drawn stay unless `redraw`.
  setCount(n: number, redraw = false): void {
    this.count = n;
    this.spacer.style.height = `${n * this.rowHeight}px`;
    if (redraw) this.invalidate();
    else this.schedule();
  }

  invalidate(): void {
    for (const el of this.shown.values()) el.remove();
    this.shown.clear();
    this.schedule();
  }

  atEnd(): boolean {
    return this.el.scrollTop + this.el.clientHeight >= this.el.scrollHeight - this.rowHeight;
  }

  scrollToEnd(): void {
    this.el.scrollTop = this.el.scrollHeight;
    this.schedule();
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  // Draws now (the first paint, and tests that read rows right away).
  draw(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const margin = 10;
    const height = this.el.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.el.scrollTop / this.rowHeight) - margin);
    const last = Math.min(this.count, Math.ceil((this.el.scrollTop + height) / this.rowHeight) + margin);
    for (const [i, el] of this.shown) {
      if (i < first || i >= last) {
        el.remove();
        this.shown.delete(i);
      }
    }
    for (let i = first; i < last; i++) {
      if (this.shown.has(i)) continue;
      const row = this.renderRow(i);
      row.classList.add("vl-row");
      row.style.top = `${i * this.rowHeight}px`;
      row.style.height = `${this.rowHeight}px`;
      this.spacer.appendChild(row);
      this.shown.set(i, row);
    }
  }
}
