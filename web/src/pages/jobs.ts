// The Jobs page: every job the session may see, newest first, updating live;
// filters by state, label and queue (dlpd's own), search by name, cancel.
// The newest page comes first; older pages follow in the background (GET
// /v1/jobs?before=ID), so search and scrolling cover every job.
import { listJobs, type ListQuery } from "../api";
import { clear, h } from "../dom";
import { duration, parseTime } from "../format";
import { JobSet, isActive, matchesSearch, replicaSummary } from "../jobs_model";
import { JOB_STATES, type Job } from "../types";
import { VirtualList } from "../virtual_list";
import { confirmCancel, errorNote, poll, stateBadge } from "../widgets";

const FIRST = 500; // the newest, polled every 2 s
const OLDER = 1000; // each older page (dlpd's most)
const ROW = 30;
const MAX_JOBS = 100_000; // held in the page at most

export function jobsPage(root: HTMLElement, _: Record<string, string>, query: URLSearchParams) {
  const jobs = new JobSet();
  let shown: Job[] = [];
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
  const status = h("div");

  const list = new VirtualList(ROW, (i) => row(shown[i]), "jobs-list");

  root.append(
    h("h1", null, "Jobs"),
    h("div", { class: "toolbar" }, state, label, queue, search, count),
    status,
    h("div", { class: "jobs-head grid-jobs" }, ...["ID", "Name", "State", "Queue", "Tenant", "Replicas", "Age", "Duration", ""].map((t) => h("span", null, t))),
    list.el,
  );

  // fields=summary: without specs, most of a listing's bytes.
  function filters(): ListQuery {
    return { state: state.value, label: label.value.trim(), queue: queue.value.trim(), fields: "summary" };
  }

  function row(job: Job): HTMLElement {
    const now = Date.now();
    const created = parseTime(job.created);
    const started = parseTime(job.started);
    const finished = parseTime(job.finished);
    const cancel = isActive(job)
      ? h("button", { class: "small", "data-test": "cancel", on: { click: () => onCancel(job) } }, "Cancel")
      : "";
    return h("div", { class: "grid-jobs job-row", "data-job": job.id, "data-state": job.state },
      h("a", { href: `/jobs/${job.id}` }, job.id),
      h("a", { href: `/jobs/${job.id}`, class: "name", title: job.name }, job.name),
      h("span", { title: job.reason }, stateBadge(job.state)),
      h("span", null, job.queue || "default"),
      h("span", null, job.tenant),
      h("span", null, replicaSummary(job)),
      h("span", null, created !== null ? duration(now - created) : ""),
      h("span", null, started !== null ? duration((finished ?? now) - started) : ""),
      h("span", null, cancel));
  }

  async function onCancel(job: Job) {
    try {
      const j = await confirmCancel(job);
      if (j) {
        jobs.merge([j]);
        show();
      }
    } catch (e) {
      status.replaceChildren(errorNote(e));
    }
  }

  let drawn = 0;
  function show(redraw = true) {
    drawn = Date.now();
    const s = search.value.trim();
    shown = s ? jobs.all().filter((j) => matchesSearch(j, s)) : jobs.all();
    count.textContent = `${shown.length} job${shown.length === 1 ? "" : "s"}`;
    list.setCount(shown.length, redraw);
  }

  async function refresh() {
    const g = generation;
    const q = filters();
    const newest = await listJobs({ ...q, limit: FIRST });
    // Active jobs below the newest page change too.
    const inPage = new Set(newest.jobs.map((j) => j.id));
    const stale = jobs.all().filter((j) => isActive(j) && !inPage.has(j.id));
    const states = q.state ? [q.state] : [...new Set(stale.map((j) => j.state))];
    const more: Job[] = [];
    for (const s of stale.length ? states : []) more.push(...(await listJobs({ ...q, state: s })).jobs);
    if (g !== generation) return;
    status.replaceChildren();
    if (newest.jobs.length < FIRST) olderDone = true;
    const changed = jobs.merge([...newest.jobs, ...more]);
    // Ages and durations move on too, but rows are not redrawn under the
    // pointer every poll.
    if (changed || Date.now() - drawn > 10_000) show();
    loadOlder();
  }

  async function loadOlder() {
    if (olderDone || loadingOlder || !jobs.size || jobs.size >= MAX_JOBS) return;
    loadingOlder = true;
    const g = generation;
    try {
      const page = await listJobs({ ...filters(), limit: OLDER, before: jobs.oldestId() });
      if (g !== generation) return;
      if (page.jobs.length < OLDER) olderDone = true;
      jobs.merge(page.jobs);
      show(false);
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
