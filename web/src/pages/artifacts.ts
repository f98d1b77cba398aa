// A job's artifacts (the files under its output folder) on its page: path,
// size, SHA-256 and a download link; dlpd streams each file from the job's
// folder (tenant-scoped; never a link or a path out of it).
import { artifactUrl, listArtifacts } from "../api";
import { h } from "../dom";
import { bytes } from "../format";
import { errorNote } from "../widgets";

export async function artifactTable(id: string): Promise<HTMLElement> {
  try {
    const { artifacts } = await listArtifacts(id);
    if (!artifacts.length) return h("p", { class: "muted", "data-test": "artifacts" }, "No files in its output folder.");
    return h("table", { class: "list artifacts", "data-test": "artifacts" },
      h("thead", null, h("tr", null, ...["path", "size", "SHA-256"].map((c) => h("th", null, c)))),
      h("tbody", null, ...artifacts.map((a) => h("tr", { "data-artifact": a.path },
        h("td", null, h("a", { href: artifactUrl(id, a.path), download: a.path.split("/").pop() }, a.path)),
        h("td", { class: "num" }, bytes(a.size)), h("td", null, h("code", { class: "digest", title: a.sha256 }, a.sha256.slice(0, 16)))))));
  } catch (e) {
    return errorNote(e);
  }
}
