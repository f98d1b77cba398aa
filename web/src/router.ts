// Client-side routes over the History API; dlpd answers every page path with
// index.html, so a reload or a shared link lands on the same page.

export interface Page {
  // Fills `root`; the returned function runs when the page is left (stop
  // polling, abort log streams).
  (root: HTMLElement, params: Record<string, string>, query: URLSearchParams): (() => void) | void;
}

interface Route {
  pattern: RegExp;
  keys: string[];
  page: Page;
}

const routes: Route[] = [];
let leave: (() => void) | void;
let root: HTMLElement;
let onChange: (path: string) => void = () => {};

export function route(path: string, page: Page): void {
  const keys: string[] = [];
  const pattern = new RegExp(
    "^" + path.replace(/:(\w+)/g, (_, k) => (keys.push(k), "([^/]+)")) + "/?$",
  );
  routes.push({ pattern, keys, page });
}

function render(): void {
  if (leave) leave();
  leave = undefined;
  root.replaceChildren();
  const path = location.pathname;
  onChange(path);
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    r.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1])));
    leave = r.page(root, params, new URLSearchParams(location.search));
    return;
  }
  root.textContent = `No page at ${path}.`;
}

export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  render();
}

export function startRouter(el: HTMLElement, changed: (path: string) => void): void {
  root = el;
  onChange = changed;
  window.addEventListener("popstate", render);
  // Same-origin links navigate in place.
  document.addEventListener("click", (e) => {
    const a = (e.target as Element).closest?.("a");
    if (!a || a.target || a.hasAttribute("download") || e.button !== 0) return;
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith("/v1/")) return;
    if (url.pathname === "/login" || url.pathname === "/logout") return;
    e.preventDefault();
    navigate(url.pathname + url.search);
  });
  render();
}
