// The Timeline page: a job's per-rank traces merged onto rank 0's clock, the
// straggler summary above, and the merged Chrome trace to download (Perfetto,
// chrome://tracing). dlpd merges and summarises (GET /v1/jobs/ID/profile and
// /profile/trace, as `dlp profile` does); the page draws.
import { ApiError, getJob, getMergedTrace, getProfile, profileTraceUrl } from "../api";
import { h } from "../dom";
import { number } from "../format";
import { Timeline } from "../timeline_canvas";
import { timelineRows } from "../trace";
import type { RankSummary } from "../types";
import { errorNote } from "../widgets";

function summaryTable(ranks: RankSummary[]): HTMLElement {
  const phases = [...new Set(ranks.flatMap((r) => Object.keys(r.phasesMs)))];
  const cols = ["rank", "host", "steps", "p50 ms", "p95 ms", "max ms", "comm ms", "work ms", ...phases.map((p) => `${p} ms`)];
  return h("table", { class: "summary", "data-test": "rank-summary" },
    h("thead", null, h("tr", null, ...cols.map((c) => h("th", null, c)))),
    h("tbody", null, ...ranks.map((r) => h("tr", null,
      h("td", null, r.rank), h("td", null, r.host), h("td", null, r.steps),
      ...[r.stepP50Ms, r.stepP95Ms, r.stepMaxMs, r.commMs, r.workMs, ...phases.map((p) => r.phasesMs[p] ?? 0)]
        .map((v) => h("td", { class: "num" }, number(v, 3)))))));
}

export function timelinePage(root: HTMLElement, params: Record<string, string>) {
  const id = params.id;
  const body = h("div", null, h("p", { class: "muted" }, "Loading traces…"));
  root.append(h("h1", null, "Timeline of ", h("a", { href: `/jobs/${id}` }, `job ${id}`)), body);
  let cancelled = false;
  (async () => {
    // 404 from the profile: the job has no trace events (yet).
    const traced = Promise.all([getProfile(id), getMergedTrace(id)]).catch((e) => {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    });
    const [job, data] = await Promise.all([getJob(id), traced]);
    if (cancelled) return;
    if (!data) {
      body.replaceChildren(h("p", { "data-test": "no-trace" },
        `Job ${id} (${job.state}) has no trace events yet; its ranks trace when DLP_TRACE_DIR or DLP_TRACE=1 is set.`));
      return;
    }
    const [profile, trace] = data;
    const { straggler } = profile;
    const { rows, end } = timelineRows(trace);
    const timeline = new Timeline(rows, end);
    body.replaceChildren(
      h("p", { class: straggler ? "straggler" : "muted", "data-test": "straggler" },
        straggler ? straggler.message : `No straggler: every rank is within 1.10× the median work per step.`),
      summaryTable(profile.perRank),
      h("div", { class: "toolbar" },
        h("button", { on: { click: () => timeline.reset() } }, "Reset zoom"),
        h("a", { class: "button", href: profileTraceUrl(id), download: `job-${id}.trace.json`, "data-test": "download-trace" },
          "Download Chrome trace"),
        h("span", { class: "muted" }, "wheel: zoom · drag: pan · double click: all")),
      timeline.el);
    timeline.draw();
  })().catch((e) => body.replaceChildren(errorNote(e)));
  return () => {
    cancelled = true;
  };
}
