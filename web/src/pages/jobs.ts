// The Jobs page: every job the session may see, newest first, updating live;
// filters by state, label and queue (dlpd's own), search by name, cancel.
// The newest page comes first; older pages follow in the background (GET
// /v1/jobs?before=ID, several at once where ids run without gaps:
// olderPages), so search and scrolling cover every job. Live updates
// poll the newest page and the page under the viewport, and redraw only the
// rows whose job changed; the others stay (moved down when new jobs arrive).
import { listJobs, type ListQuery } from "../api";
import { clear, h } from "../dom";
import { duration, parseTime } from "../format";
import {JobSet, compareIds, isActive, matchesSearch, olderPages, replicaSummary} from '../jobs_model';
import { JOB_STATES, type JobSummary } from "../types";
import { VirtualList } from "../virtual_list";
import { confirmCancel, errorNote, poll, stateBadge } from "../widgets";
import { navigate } from "../router";
import { isRunsView, viewFromQuery } from "../runs_model";
import { runsTable } from "./runs";

const FIRST = 500; // the newest, polled every 2 s
const OLDER = 1000; // each older page (dlpd's most)
const PARALLEL = 4; // older pages asked for at once (the browser opens 6 connections)
const ROW = 30;
const MAX_JOBS = 100_000; // held in the page at most

export function jobsPage(root: HTMLElement, _: Record<string, string>, query: URLSearchParams) {
  // Columns, conditions or a sort: the runs table, sorted and filtered by dlpd.
  const view = viewFromQuery(query);
  if (isRunsView(view)) return runsTable(root, view);
  const jobs = new JobSet();
  let shown: JobSummary[] = [];
  let olderDone = false;
  let loadingOlder = false;
  let generation = 0; // bumps when the filters change; late answers are dropped

  const state = h("select", { name: "state", "aria-label": "state" }, h("option", { value: "" }, "all states"),
    ...JOB_STATES.map((s) => h("option", { value: s }, s)));
  const label = h("input", { name: "label", placeholder: "label k=v", "aria-label": "label" });
  const queue = h("input", { name: "queue", placeholder: "queue", "aria-label": "queue" });
  const search = h("input", { name: "search", type: "search", placeholder: "search name", "aria-label": "search" });
  state.value = query.get("state") ?? "";
  label.value = query.get("label") ?? "";
  queue.value = query.get("queue") ?? "";
  search.value = query.get("q") ?? "";
  const count = h("span", { class: "muted", "data-test": "job-count" });
  // Picking columns turns the list into the runs table.
  const columns = h("input", { name: "columns", placeholder: "add columns: metric.loss, param.lr", "aria-label": "columns",
    on: { change: () => columns.value.trim() && navigate(`/jobs?columns=${encodeURIComponent(columns.value.replace(/\s+/g, ""))}`) } });
  const status = h("div");

  const list = new VirtualList(ROW, (i) => row(shown[i]), 'jobs-list', (i) => shown[i].id);

  root.append(
    h("h1", null, "Jobs"),
    h("div", { class: "toolbar" }, state, label, queue, search, columns, count),
    status,
    h("div", { class: "jobs-head grid-jobs" }, ...["ID", "Name", "State", "Queue", "Tenant", "Replicas", "Age", "Duration", ""].map((t) => h("span", null, t))),
    list.el,
  );

  // fields=summary: without specs, most of a listing's bytes.
  function filters(): ListQuery {
    return { state: state.value, label: label.value.trim(), queue: queue.value.trim(), fields: "summary" };
  }

  // Age and duration, as of now.
  function times(job: JobSummary): [string, string] {
    const now = Date.now();
    const created = parseTime(job.created);
    const started = parseTime(job.started);
    const finished = parseTime(job.finished);
    return [
      created !== null ? duration(now - created) : '',
      started !== null ? duration((finished ?? now) - started) : ''
    ];
  }

  function row(job: JobSummary): HTMLElement {
    const [age, took] = times(job);
    const cancel = isActive(job)
      ? h("button", { class: "small", "data-test": "cancel", on: { click: () => onCancel(job) } }, "Cancel")
      : "";
    return h(
        'div', {class: 'grid-jobs job-row', 'data-job': job.id, 'data-state': job.state},
        h('a', {href: `/jobs/${job.id}`}, job.id),
        h('a', {href: `/jobs/${job.id}`, class: 'name', title: job.name}, job.name),
        h('span', {title: job.reason}, stateBadge(job.state)),
        h('span', null, job.queue || 'default'), h('span', null, job.tenant),
        h('span', null, replicaSummary(job)), h('span', {class: 'age'}, age),
        h('span', {class: 'took'}, took), h('span', null, cancel));
  }

  async function onCancel(job: JobSummary) {
    try {
      const j = await confirmCancel(job);
      if (j) show(jobs.merge([j]));
    } catch (e) {
      status.replaceChildren(errorNote(e));
    }
  }

  // The list again after jobs changed (or the search did): rows of `changed`
  // jobs are drawn again; without it, every row in view is.
  function show(changed?: string[]) {
    const s = search.value.trim();
    shown = s ? jobs.all().filter((j) => matchesSearch(j, s)) : jobs.all();
    count.textContent = `${shown.length} job${shown.length === 1 ? "" : "s"}`;
    list.setCount(shown.length, !changed);
    if (changed) list.refresh(changed);
  }

  // Ages and durations move on: their cells are updated in place, not the
  // rows under the pointer.
  let ticked = Date.now();
  function tick() {
    ticked = Date.now();
    list.forEachShown((i, el) => {
      const [age, took] = times(shown[i]);
      el.querySelector('.age')!.textContent = age;
      el.querySelector('.took')!.textContent = took;
    });
  }

  // The jobs in view below the newest page: one page from the top row down
  // to the bottom one (the set holds every job between them), so that the
  // rows in view never stay stale; the others are asked for once in view.
  async function inView(q: ListQuery, newest: JobSummary[]): Promise<JobSummary[]> {
    const [first, last] = list.range();
    if (first >= last || !newest.length) return [];
    const top = shown[first];
    const bottom = shown[last - 1];
    if (compareIds(bottom.id, newest[0].id) >= 0) return [];  // the newest page holds them
    const all = jobs.all();
    const n = all.indexOf(bottom) - all.indexOf(top) + 1;
    if (n <= 0) return [];
    return (await listJobs({...q, limit: Math.min(n, OLDER), before: String(Number(top.id) + 1)}))
        .jobs;
  }

  async function refresh() {
    const g = generation;
    const q = filters();
    const newest = await listJobs({ ...q, limit: FIRST });
    const below = await inView(q, newest.jobs);
    if (g !== generation) return;
    status.replaceChildren();
    if (newest.jobs.length < FIRST) olderDone = true;
    const first = !jobs.size;
    const changed = jobs.merge([...newest.jobs, ...below]);
    if (first)
      show();
    else if (changed.length)
      show(changed);
    if (Date.now() - ticked > 10_000) tick();
    loadOlder();
  }

  async function loadOlder() {
    if (olderDone || loadingOlder || !jobs.size || jobs.size >= MAX_JOBS) return;
    loadingOlder = true;
    const g = generation;
    try {
      const q = filters();
      const befores = olderPages(jobs.all(), OLDER, PARALLEL);
      if (!befores.length) olderDone = true;
      // Each page is drawn as it comes; the next ones start from the oldest
      // job once every page came (only then the set has no gap above it).
      await Promise.all(befores.map(async (before) => {
        const page = await listJobs({...q, limit: OLDER, before});
        if (g !== generation) return;
        if (page.jobs.length < OLDER) olderDone = true;
        show(jobs.merge(page.jobs));
      }));
      if (g !== generation) return;
      if (!olderDone && jobs.size < MAX_JOBS) setTimeout(loadOlder, 0);
    } catch (e) {
      olderDone = true;
      status.replaceChildren(errorNote(e));
    } finally {
      loadingOlder = false;
    }
  }

  function refilter() {
    const q = new URLSearchParams();
    if (state.value) q.set("state", state.value);
    if (label.value.trim()) q.set("label", label.value.trim());
    if (queue.value.trim()) q.set("queue", queue.value.trim());
    if (search.value.trim()) q.set("q", search.value.trim());
    history.replaceState(null, "", `/jobs${q.toString() ? `?${q}` : ""}`);
    generation++;
    jobs.clear();
    olderDone = false;
    clear(status);
    show();
    refresh().catch((e) => status.replaceChildren(errorNote(e)));
  }

  state.addEventListener("change", refilter);
  label.addEventListener("change", refilter);
  queue.addEventListener("change", refilter);
  search.addEventListener("input", () => show());

  const stop = poll(() => refresh().catch((e) => status.replaceChildren(errorNote(e))), 2000);
  return stop;
}
