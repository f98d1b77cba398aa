// The Job page: state and reason (with the scheduler's account of why a
// queued job waits), an elastic job's size and resizes, replicas and their
// exits, events, the spec as YAML and the live logs.
import { ApiError, getEvents, getJob, getWhy } from "../api";
import { h } from "../dom";
import { elasticFacts, resizeHistory } from "../elastic_model";
import { duration, gpuShares, parseTime } from "../format";
import { isActive } from "../jobs_model";
import { LogView } from "../log_view";
import type { Job, JobEvent, Why } from "../types";
import { confirmCancel, errorNote, failureNote, poll, stateBadge } from "../widgets";
import { toYaml } from "../yaml";
import { artifactTable } from "./artifacts";

function header(job: Job, why: Why | null, events: JobEvent[], onCancel: () => void): HTMLElement {
  const now = Date.now();
  const started = parseTime(job.started);
  const finished = parseTime(job.finished);
  const facts: [string, string][] = [
    ["tenant", job.tenant],
    ["queue", job.queue || "default"],
    ["created", job.created ?? "–"],
    ["ran", started !== null ? duration((finished ?? now) - started) : "not started"],
    ["exit code", job.exitCode === null ? "–" : String(job.exitCode)],
    ["restarts", String(job.restartCount)],
    ...elasticFacts(job),
  ];
  if (job.gpuSharing) facts.push(["GPU sharing", job.gpuSharing]);
  const reason = why?.reason || job.reason;
  const resizes = resizeHistory(events);
  return h("header", { class: "job-header" },
    h("h1", null, h("span", { class: "muted" }, `#${job.id} `), job.name, " ",
      h("span", { "data-test": "job-state" }, stateBadge(job.state))),
    reason ? h("p", { class: "reason", "data-test": "job-reason" }, reason) : null,
    why && why.state === "Queued"
      ? h("div", { class: "why", "data-test": "why" },
          why.position !== null ? h("p", null, `Position ${why.position} in queue ${job.queue || "default"}`) : null,
          why.estimatedStart ? h("p", null, `Estimated start ${why.estimatedStart}`) : null,
          why.trace.length ? h("ol", null, ...why.trace.map((t) => h("li", null, t))) : null)
      : null,
    h("dl", { class: "facts" }, ...facts.flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
    resizes.length
      ? h("ol", { class: "resizes", "data-test": "resizes" },
          ...resizes.map((e) => h("li", null, h("span", { class: "muted" }, `${e.time} `), e.message)))
      : null,
    h("nav", { class: "toolbar" },
      h("a", { href: `/charts?jobs=${job.id}`, class: "button" }, "Metrics"),
      h("a", { href: `/jobs/${job.id}/timeline`, class: "button" }, "Timeline"),
      isActive(job) ? h("button", { class: "danger", "data-test": "cancel", on: { click: onCancel } }, "Cancel") : null));
}

function replicaTable(job: Job): HTMLElement {
  const cols = ["replica", "role", "state", "exit code", "signal", "host", "pid", "GPUs", "reason"];
  return h("table", { class: "replicas", "data-test": "replicas" },
    h("thead", null, h("tr", null, ...cols.map((c) => h("th", null, c)))),
    h("tbody", null, ...(job.replicas ?? []).map((r) =>
      h("tr", null,
        h("td", null, r.name), h("td", null, r.role), h("td", null, stateBadge(r.state)),
        h("td", null, r.exitCode ?? "–"), h("td", null, r.signal ?? "–"), h("td", null, r.host),
        h("td", null, r.pid || ""), h("td", { class: "gpus", "data-test": "replica-gpus" }, gpuShares(r.gpus)),
        h("td", null, r.reason ?? "")))));
}

function eventList(events: JobEvent[]): HTMLElement {
  return h("table", { class: "events", "data-test": "events" },
    h("tbody", null, ...events.map((e) =>
      h("tr", null, h("td", { class: "muted" }, e.time), h("td", null, e.type), h("td", null, e.message)))));
}

function replicaNames(job: Job): string[] {
  if (job.replicas?.length) return job.replicas.map((r) => r.name);
  return (job.spec.replicas ?? []).flatMap((r) => Array.from({ length: r.count }, (_, i) => `${r.role}-${i}`));
}

export function jobPage(root: HTMLElement, params: Record<string, string>) {
  const id = params.id;
  const top = h("div");
  const replicas = h("section", null);
  const events = h("section", null);
  const spec = h("section", null);
  const artifacts = h("section", null);
  let logs: LogView | null = null;
  let last: Job | null = null;
  root.append(top);

  async function refresh() {
    let job: Job;
    try {
      job = await getJob(id);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        top.replaceChildren(failureNote(e, `Job ${id}`));
        stop();
        return;
      }
      throw e;
    }
    const [ev, why] = await Promise.all([
      getEvents(id).catch(() => ({ events: [] as JobEvent[] })),
      job.state === "Queued" ? getWhy(id).catch(() => null) : Promise.resolve(null),
    ]);
    top.replaceChildren(header(job, why, ev.events, async () => {
      try {
        const j = await confirmCancel(job);
        if (j) refresh();
      } catch (e) {
        top.append(errorNote(e));
      }
    }));
    replicas.replaceChildren(h("h2", null, "Replicas"), replicaTable(job));
    events.replaceChildren(h("h2", null, "Events"), eventList(ev.events));
    // Listed (with digests) when the page opens and once the job ended.
    if ((!last || !isActive(job)) && job.state !== "Queued") {
      artifacts.replaceChildren(h("h2", null, "Artifacts"), await artifactTable(id));
    }
    if (!last) {
      spec.replaceChildren(h("h2", null, "Spec"), h("pre", { class: "yaml", "data-test": "spec" }, toYaml(job.spec)));
      logs = new LogView(id, replicaNames(job));
      root.append(h("div", { class: "job-columns" }, h("div", null, replicas, artifacts, events, spec), logs.el));
      logs.open();
    }
    last = job;
    if (!isActive(job)) stop();
  }

  const stop = poll(() => refresh().catch((e) => top.replaceChildren(errorNote(e))), 2000);
  return () => {
    stop();
    logs?.close();
  };
}
