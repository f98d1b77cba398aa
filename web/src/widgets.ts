// Small pieces several pages share: state badges, error notes, the cancel
// confirmation, and polling that stops when the page is left.
import { ApiError, cancelJob } from "./api";
import { h } from "./dom";
import type { Job } from "./types";

export function stateBadge(state: string): HTMLElement {
  return h("span", { class: `state state-${state}` }, state);
}

export function errorNote(e: unknown): HTMLElement {
  return h("div", { class: "error", role: "alert" }, e instanceof Error ? e.message : String(e));
}

// What a page shows for something dlpd answers 404 to (absent, or another
// tenant's: the two look the same); other errors as errorNote.
export function failureNote(e: unknown, what: string): HTMLElement {
  if (!(e instanceof ApiError && e.status === 404)) return errorNote(e);
  return h("div", null, h("h1", { "data-test": "not-found" }, `${what} not found`),
    h("p", null, "It does not exist, or it belongs to another tenant."));
}

// Asks before cancelling; resolves to the job as dlpd answered, or null when
// the user said no.
export function confirmCancel(job: Pick<Job, "id" | "name">): Promise<Job | null> {
  return new Promise((resolve, reject) => {
    const yes = h("button", { class: "danger", value: "yes", "data-test": "confirm-cancel" }, "Cancel job");
    const no = h("button", { value: "no" }, "Keep running");
    const dialog = h(
      "dialog",
      { class: "confirm" },
      h("form", { method: "dialog" }, h("p", null, `Cancel job ${job.id} (${job.name})?`), h("div", { class: "buttons" }, no, yes)),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (dialog.returnValue !== "yes") return resolve(null);
      cancelJob(job.id).then(resolve, reject);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
  });
}

// Runs `fn` now and every `ms` after the previous run ended; the returned
// function stops it.
export function poll(fn: () => Promise<void> | void, ms: number): () => void {
  let stopped = false;
  let timer = 0;
  const tick = async () => {
    try {
      await fn();
    } catch (e) {
      console.warn(e);
    }
    if (!stopped) timer = window.setTimeout(tick, ms);
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// Polls `draw` every `ms` and shows what it returns in `body` (or the error).
export function pollInto(body: HTMLElement, draw: () => Promise<HTMLElement>, ms: number): () => void {
  return poll(async () => {
    try {
      body.replaceChildren(await draw());
    } catch (e) {
      body.replaceChildren(errorNote(e));
    }
  }, ms);
}
