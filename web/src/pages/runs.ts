// The Jobs page as a runs table (/jobs?columns=...&where=...&sort=...): the
// columns a user picks (labels, sweep parameters, the last/min/max of
// metrics from dlpd's metrics files), sorted and filtered by dlpd
// (GET /v1/jobs with columns/where/sort/offset), fetched a block of rows at a
// time for the rows in view, so 10,000 runs cost a screenful. The view lives
// in the URL; rows selected here are compared on /compare.
import { listRuns, listSweeps, type RunsQuery } from "../api";
import { h } from "../dom";
import { duration, parseTime } from "../format";
import { navigate } from "../router";
import { cellText, columnSuggestions, nextSort, parseWhere, viewToQuery, type RunsView } from "../runs_model";
import { JOB_STATES, type Run } from "../types";
import { VirtualList } from "../virtual_list";
import { errorNote, poll, stateBadge } from "../widgets";

const BLOCK = 200; // rows per request
const ROW = 30;

export function runsTable(root: HTMLElement, view: RunsView) {
  const blocks = new Map<number, Run[]>();
  const loading = new Set<number>();
  const selected = new Set<string>();
  let total = 0;
  let stopped = false;

  const state = h("select", { name: "state", "aria-label": "state" }, h("option", { value: "" }, "all states"),
    ...JOB_STATES.map((s) => h("option", { value: s }, s)));
  state.value = view.state;
  const columns = h("input", { name: "columns", class: "wide", list: "run-columns", placeholder: "columns: metric.loss, param.lr, label.team", "aria-label": "columns" });
  const suggestions = h("datalist", { id: "run-columns" });
  let objectives: string[] = [];
  listSweeps().then(({ sweeps }) => (objectives = [...new Set(sweeps.map((s) => s.spec.objective.metric))])).catch(() => {});
  columns.value = view.columns.join(", ");
  const where = h("input", { name: "where", class: "wide", placeholder: "filter: metric.test_accuracy>0.85 label.team=vision", "aria-label": "filter" });
  where.value = view.where.join(" ");
  const count = h("span", { class: "muted", "data-test": "run-count" });
  const compare = h("button", { "data-test": "compare", disabled: true, on: { click: () => navigate(`/compare?jobs=${[...selected].join(",")}`) } }, "Compare");
  const status = h("div");

  // Fixed columns, then the chosen ones; headers sort (dlpd's order).
  const fixed: [string, string | null][] = [["", null], ["ID", "id"], ["Name", "name"], ["State", "state"], ["Age", "created"]];
  const head = h("div", { class: "jobs-head run-grid" },
    ...[...fixed, ...view.columns.map((c): [string, string] => [c, c])].map(([title, key]) => {
      if (!key) return h("span");
      const mark = view.sort === key ? " ▲" : view.sort === `-${key}` ? " ▼" : "";
      return h("button", { class: "sort", "data-sort": key, title: `sort by ${key}`, on: { click: () => go({ ...view, sort: nextSort(view.sort, key) }) } }, title + mark);
    }));
  const template = `28px 70px minmax(120px, 2fr) 100px 70px ${view.columns.map(() => "minmax(90px, 1fr)").join(" ")}`;
  head.style.gridTemplateColumns = template;

  const rowOf = (i: number) => blocks.get(Math.floor(i / BLOCK))?.[i % BLOCK];
  const list = new VirtualList(ROW, (i) => row(i), "jobs-list", (i) => rowOf(i)?.id ?? `#${i}`);
  list.el.addEventListener("scroll", () => fetchInView());

  root.append(
    h("h1", null, "Runs"),
    h("div", { class: "toolbar" }, state, columns, suggestions, where, count, compare, h("a", { href: "/jobs" }, "plain list")),
    status, h("div", { class: "table-scroll" }, head, list.el),
  );

  function row(i: number): HTMLElement {
    const run = rowOf(i);
    if (!run) return h("div", { class: "run-grid run-row placeholder" }, h("span", { class: "muted" }, "…"));
    const created = parseTime(run.created);
    const box = h("input", { type: "checkbox", "aria-label": `select ${run.id}`, on: { change: () => toggle(run.id, box.checked) } });
    box.checked = selected.has(run.id);
    const el = h("div", { class: "run-grid run-row job-row", "data-job": run.id, "data-state": run.state },
      box, h("a", { href: `/jobs/${run.id}` }, run.id),
      h("a", { href: `/jobs/${run.id}`, class: "name", title: run.name }, run.name),
      h("span", { title: run.reason }, stateBadge(run.state)),
      h("span", null, created === null ? "" : duration(Date.now() - created)),
      ...view.columns.map((c) => h("span", { class: "num", "data-column": c }, cellText(run.values[c]))));
    el.style.gridTemplateColumns = template;
    return el;
  }

  function toggle(id: string, on: boolean) {
    if (on) selected.add(id);
    else selected.delete(id);
    compare.disabled = selected.size < 2;
    compare.textContent = selected.size ? `Compare ${selected.size}` : "Compare";
  }

  function query(block: number): RunsQuery {
    return { columns: view.columns, where: view.where, sort: view.sort, state: view.state, offset: block * BLOCK, limit: BLOCK };
  }

  // Fetches `block` (again, when `refresh`); rows whose run changed are drawn again.
  async function load(block: number, refresh = false) {
    if (loading.has(block) || (!refresh && blocks.has(block))) return;
    loading.add(block);
    try {
      const page = await listRuns(query(block));
      if (stopped) return;
      const old = blocks.get(block) ?? [];
      blocks.set(block, page.jobs);
      if (block === 0) {
        // Offered after what is typed so far (a datalist matches the whole value).
        const typed = columns.value.replace(/[^,]*$/, "");
        suggestions.replaceChildren(...columnSuggestions(page.jobs, objectives, view.columns)
          .map((c) => h("option", { value: `${typed}${c}` })));
      }
      const changed = page.jobs.filter((r, k) => JSON.stringify(r) !== JSON.stringify(old[k])).map((r) => r.id);
      if (page.total !== total || !old.length) {
        total = page.total;
        count.textContent = `${total} run${total === 1 ? "" : "s"}`;
        list.setCount(total, true);
      } else if (changed.length) {
        list.refresh(changed);
      }
      status.replaceChildren();
    } finally {
      loading.delete(block);
    }
  }

  function blocksInView(): number[] {
    const [first, last] = list.range();
    const out: number[] = [];
    for (let b = Math.floor(first / BLOCK); b <= Math.floor(Math.max(first, last - 1) / BLOCK); b++) out.push(b);
    return out;
  }

  function fetchInView() {
    for (const b of blocksInView()) load(b).catch((e) => status.replaceChildren(errorNote(e)));
  }

  function go(v: RunsView) {
    const q = viewToQuery(v).toString();
    navigate(`/jobs${q ? `?${q}` : ""}`, true);
  }
  const fromInputs = () => ({
    columns: columns.value.split(",").map((c) => c.trim()).filter(Boolean),
    where: parseWhere(where.value), sort: view.sort, state: state.value,
  });
  for (const input of [state, columns, where]) input.addEventListener("change", () => go(fromInputs()));

  // Live: the blocks in view again every 2 s (the first one for the total).
  const stop = poll(async () => {
    try {
      await Promise.all([...new Set([0, ...blocksInView()])].map((b) => load(b, true)));
    } catch (e) {
      status.replaceChildren(errorNote(e));
    }
  }, 2000);
  return () => {
    stopped = true;
    stop();
  };
}
