// A scrolling list that creates DOM nodes only for the rows in view (plus a
// margin), so 10,000 jobs or 100,000 log lines cost as much as a screenful.
// Rows have one fixed height; positions are set through CSSOM (allowed by
// dlpd's CSP, unlike style attributes). Rows are kept by key (by default their
// index): when rows move (new ones above) they are moved, not drawn again, and
// only the rows named to refresh() are drawn again.
import { h } from "./dom";

interface Shown {
  el: HTMLElement;
  index: number;
}

export class VirtualList {
  readonly el: HTMLDivElement;
  private spacer: HTMLDivElement;
  private count = 0;
  private shown = new Map<string, Shown>();
  private stale = new Set<string>();
  private frame = 0;

  constructor(
      private rowHeight: number,
      private renderRow: (index: number) => HTMLElement,
      className = '',
      private keyOf: (index: number) => string = String,
  ) {
    this.spacer = h("div", { class: "vl-spacer" });
    this.el = h("div", { class: `vl ${className}`, tabindex: "0" }, this.spacer);
    this.el.addEventListener("scroll", () => this.schedule());
    new ResizeObserver(() => this.schedule()).observe(this.el);
  }

  get length(): number {
    return this.count;
  }

  // New row count; rows already drawn stay (moved where their key went)
  // unless `redraw`.
  setCount(n: number, redraw = false): void {
    this.count = n;
    this.spacer.style.height = `${n * this.rowHeight}px`;
    if (redraw) this.invalidate();
    else this.schedule();
  }

  // Draws the rows with these keys again (their data changed), if in view.
  refresh(keys: Iterable<string>): void {
    for (const k of keys)
      if (this.shown.has(k)) this.stale.add(k);
    this.schedule();
  }

  invalidate(): void {
    for (const s of this.shown.values()) s.el.remove();
    this.shown.clear();
    this.schedule();
  }

  // The indices of the rows in view, without the margin: [first, last).
  range(): [number, number] {
    const first = Math.floor(this.el.scrollTop / this.rowHeight);
    const last = Math.ceil((this.el.scrollTop + (this.el.clientHeight || 600)) / this.rowHeight);
    return [Math.min(first, this.count), Math.min(last, this.count)];
  }

  // Calls `fn` on every row element drawn, with its index (for small in-place
  // updates such as ticking clocks).
  forEachShown(fn: (index: number, el: HTMLElement) => void): void {
    for (const s of this.shown.values()) fn(s.index, s.el);
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
    const [top, bottom] = this.range();
    const first = Math.max(0, top - margin);
    const last = Math.min(this.count, bottom + margin);
    const wanted = new Set<string>();
    for (let i = first; i < last; i++) {
      const key = this.keyOf(i);
      wanted.add(key);
      const old = this.shown.get(key);
      if (old && !this.stale.has(key)) {
        if (old.index !== i) this.place(old.el, (old.index = i));
        continue;
      }
      const row = this.renderRow(i);
      row.classList.add('vl-row');
      row.style.height = `${this.rowHeight}px`;
      this.place(row, i);
      if (old)
        old.el.replaceWith(row);
      else
        this.spacer.appendChild(row);
      this.shown.set(key, {el: row, index: i});
    }
    for (const [key, s] of this.shown) {
      if (!wanted.has(key)) {
        s.el.remove();
        this.shown.delete(key);
      }
    }
    this.stale.clear();
  }

  private place(el: HTMLElement, index: number): void {
    el.style.top = `${index * this.rowHeight}px`;
  }
}
