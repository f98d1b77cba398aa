// Building DOM nodes without HTML strings: text always goes in as text nodes,
// so nothing a job prints or names can become markup.

type Child = Node | string | number | null | undefined | false;
type Props = {
  class?: string;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (e: HTMLElementEventMap[K]) => void }>;
  [attr: string]: unknown;
};

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "on") {
        for (const [event, handler] of Object.entries(value as object)) {
          el.addEventListener(event, handler as EventListener);
        }
      } else if (key === "class") {
        el.className = String(value);
      } else if (key === "style") {
        throw new Error("style attributes are refused by the CSP; use a class");
      } else {
        el.setAttribute(key, value === true ? "" : String(value));
      }
    }
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

// Saves `data` as a file through a temporary object URL.
export function download(name: string, data: Blob): void {
  const url = URL.createObjectURL(data);
  const a = h("a", { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// An SVG element (charts drawn as SVG: the parallel coordinates, the DAG);
// text goes in as text nodes, as with h().
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  append(el, ...children);
  return el;
}
