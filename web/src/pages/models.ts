// The model registry (/models) and one version (/models/REF, REF as
// `dlp model` takes it: NAME, NAME:3, NAME@alias; the owner sees a tenant's
// as TENANT/NAME): its file with size, SHA-256 and a download link (dlpd
// streams it), its aliases, the job and the metrics it came from.
import { getModel, listModels, modelFileUrl } from "../api";
import { h } from "../dom";
import { bytes, number } from "../format";
import type { ModelVersion } from "../types";
import { errorNote, failureNote } from "../widgets";

const ref = (m: ModelVersion) => `${m.name}:${m.version}`;
const link = (r: string, text: string) => h("a", { href: `/models/${encodeURIComponent(r)}` }, text);

export function modelsPage(root: HTMLElement) {
  const body = h("div", { class: "table-scroll" });
  root.append(h("h1", null, "Models"), body);
  listModels().then(({ models }) => {
    body.replaceChildren(models.length ? h("table", { class: "list", "data-test": "models" },
      h("thead", null, h("tr", null, ...["Name", "Version", "Aliases", "File", "Size", "Job", "Created"].map((c) => h("th", null, c)))),
      h("tbody", null, ...models.map((m) => h("tr", { "data-model": ref(m) },
        h("td", null, link(m.name, m.name)), h("td", { class: "num" }, link(ref(m), `v${m.version}`)),
        h("td", null, m.aliases.join(", ")), h("td", null, m.file), h("td", { class: "num" }, bytes(m.size)),
        h("td", null, h("a", { href: `/jobs/${m.job}` }, m.job)), h("td", null, m.created ?? "")))))
      : h("p", { class: "muted" }, "No models registered yet (dlp model register)."));
  }).catch((e) => body.replaceChildren(errorNote(e)));
}

export function modelPage(root: HTMLElement, params: Record<string, string>) {
  const r = params.ref;
  getModel(r).then((m) => {
    const tenantPrefix = r.includes("/") ? `${r.slice(0, r.indexOf("/"))}/` : "";
    const shown = `${tenantPrefix}${m.name.slice(m.name.indexOf("/") + 1)}:${m.version}`;
    root.replaceChildren(
      h("h1", null, `Model ${m.name} v${m.version}`),
      h("dl", { class: "facts" },
        h("dt", null, "file"), h("dd", null, m.file),
        h("dt", null, "size"), h("dd", null, bytes(m.size)),
        h("dt", null, "aliases"), h("dd", null, m.aliases.join(", ") || "–"),
        h("dt", null, "job"), h("dd", null, h("a", { href: `/jobs/${m.job}` }, m.job)),
        h("dt", null, "git commit"), h("dd", null, m.gitCommit || "–"),
        h("dt", null, "registered"), h("dd", null, m.created ?? "")),
      h("p", null, h("a", { class: "button", href: modelFileUrl(shown), download: m.file, "data-test": "download" }, `Download ${m.file}`),
        " SHA-256 ", h("code", { "data-test": "sha256" }, m.sha256)),
      h("h2", null, "Metrics of its job"),
      Object.keys(m.metrics).length ? h("table", { class: "list", "data-test": "model-metrics" }, h("tbody", null,
        ...Object.entries(m.metrics).map(([k, v]) => h("tr", null, h("td", null, k), h("td", { class: "num", "data-value": String(v) }, number(v ?? NaN, 6))))))
        : h("p", { class: "muted" }, "none"),
      h("h2", null, "Labels"),
      h("p", null, Object.entries(m.labels).map(([k, v]) => `${k}=${v}`).join("  ") || "–"));
  }).catch((e) => root.replaceChildren(failureNote(e, `Model ${r}`)));
}
