// The dlp dashboard: asks dlpd who is signed in, then draws the page the path
// names. Pages: Jobs (the runs table once columns are chosen), Compare, Job
// (with live logs and artifacts), Metrics (/charts: /metrics is dlpd's
// Prometheus endpoint), Timeline, Sweeps, Pipelines, Models, Usage.
import "uplot/dist/uPlot.min.css";
import "./style.css";
import { loadSession, signOut } from "./api";
import { h } from "./dom";
import { jobPage } from "./pages/job";
import { jobsPage } from "./pages/jobs";
import { comparePage } from "./pages/compare";
import { metricsPage } from "./pages/metrics";
import { modelPage, modelsPage } from "./pages/models";
import { pipelinePage, pipelinesPage } from "./pages/pipelines";
import { sweepPage, sweepsPage } from "./pages/sweeps";
import { timelinePage } from "./pages/timeline";
import { usagePage } from "./pages/usage";
import { route, startRouter } from "./router";
import { errorNote } from "./widgets";

route("/", jobsPage);
route("/jobs", jobsPage);
route("/jobs/:id", jobPage);
route("/jobs/:id/timeline", timelinePage);
route("/charts", metricsPage);
route("/usage", usagePage);
route("/compare", comparePage);
route("/sweeps", sweepsPage);
route("/sweeps/:id", sweepPage);
route("/pipelines", pipelinesPage);
route("/pipelines/:id", pipelinePage);
route("/models", modelsPage);
route("/models/:ref", modelPage);

async function main() {
  const main = h("main");
  let session;
  try {
    session = await loadSession();
  } catch (e) {
    document.body.append(errorNote(e));
    return;
  }
  const links = [
    ["/jobs", "Jobs"],
    ["/charts", "Metrics"],
    ["/sweeps", "Sweeps"],
    ["/pipelines", "Pipelines"],
    ["/models", "Models"],
    ["/usage", "Usage"],
  ].map(([href, text]) => h("a", { href, "data-nav": href }, text));
  const who = session.admin ? "owner" : session.tenant;
  document.body.append(
    h("nav", { class: "top" }, h("a", { href: "/", class: "brand" }, "dlp"), ...links,
      h("span", { class: "who", "data-test": "tenant" }, who),
      h("button", { class: "small", "data-test": "sign-out", on: { click: onSignOut } }, "Sign out")),
    main,
  );
  function onSignOut() {
    signOut().catch((e) => main.prepend(errorNote(e)));
  }
  startRouter(main, (path) => {
    for (const a of links) {
      const href = a.getAttribute("href")!;
      a.classList.toggle("active", path === href || path.startsWith(`${href}/`) ||
        (href === "/jobs" && (path === "/" || path === "/compare")));
    }
  });
}

main();
