// dlpd's API through the session cookie (docs/ui.md): every call sends the
// cookie, every non-GET one the CSRF token of GET /v1/ui/session; a 401 means
// the session ended, so the page goes to the sign-in form. The token itself
// never reaches this code, and nothing is kept in local storage.
import type { MergedTrace } from "./trace";
import type {
  Artifact, Job, JobEvent, JobSummary, ModelVersion, Pipeline, Profile, QueueStanding, ReplicaUsage, RunsPage,
  Session, Sweep, UsageHistory, Why,
} from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let csrf = "";

function signIn(): never {
  location.assign("/login");
  throw new ApiError(401, "signed out");
}

async function failure(res: Response): Promise<ApiError> {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = await res.json();
    if (body?.error?.message) message = body.error.message;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(res.status, message);
}

export async function request(
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  const method = (init.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers);
  if (method !== "GET" && method !== "HEAD") headers.set("X-CSRF-Token", csrf);
  const res = await fetch(path, { ...init, headers, credentials: "same-origin" });
  if (res.status === 401) signIn();
  if (!res.ok) throw await failure(res);
  return res;
}

async function json<T>(path: string, init?: RequestInit): Promise<T> {
  return (await request(path, init)).json() as Promise<T>;
}

export async function loadSession(): Promise<Session> {
  const s = await json<Session>("/v1/ui/session");
  csrf = s.csrf;
  return s;
}

// POST /logout: dlpd ends the session and clears the cookie; then the
// sign-in page.
export async function signOut(): Promise<void> {
  await request("/logout", { method: "POST" });
  location.assign("/login");
}

export interface ListQuery {
  state?: string;
  label?: string;
  queue?: string;
  limit?: number;
  before?: string;
  fields?: "summary" | "all";
}

export function listJobs(q: ListQuery, signal?: AbortSignal): Promise<{ jobs: JobSummary[] }> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v !== undefined && v !== "") params.set(k, String(v));
  }
  const qs = params.toString();
  return json(`/v1/jobs${qs ? `?${qs}` : ""}`, { signal });
}

// The runs table's query (GET /v1/jobs with columns, where, sort, offset):
// sorted and filtered by dlpd over every job the session may see.
export interface RunsQuery {
  columns: string[];
  where: string[];
  sort: string; // "-metric.loss" for descending; "" for newest first
  state?: string;
  offset: number;
  limit: number;
}

export function runsSearch(q: RunsQuery): URLSearchParams {
  const params = new URLSearchParams();
  params.set("columns", q.columns.join(","));
  for (const w of q.where) params.append("where", w);
  if (q.sort) params.set("sort", q.sort);
  if (q.state) params.set("state", q.state);
  params.set("offset", String(q.offset));
  params.set("limit", String(q.limit));
  return params;
}

export const listRuns = (q: RunsQuery, signal?: AbortSignal) => json<RunsPage>(`/v1/jobs?${runsSearch(q)}`, { signal });

const job = (id: string) => `/v1/jobs/${encodeURIComponent(id)}`;

export const getJob = (id: string, signal?: AbortSignal) => json<Job>(job(id), { signal });
export const getEvents = (id: string) => json<{ events: JobEvent[] }>(`${job(id)}/events`);
export const getWhy = (id: string) => json<Why>(`${job(id)}/why`);
export const getUsage = (id: string) => json<{ replicas: ReplicaUsage[] }>(`${job(id)}/usage`);
export const profileTraceUrl = (id: string) => `${job(id)}/profile/trace`;
export const getProfile = (id: string) => json<Profile>(`${job(id)}/profile`);
export const getMergedTrace = (id: string) => json<MergedTrace>(profileTraceUrl(id));
export const getUsageHistory = (hours: number) => json<UsageHistory>(`/v1/usage/history?hours=${hours}`);
export const getQueues = () => json<QueueStanding[]>("/v1/queues");
export const listArtifacts = (id: string) => json<{ artifacts: Artifact[] }>(`${job(id)}/artifacts`);
// Each path component encoded, the slashes kept (dlpd's route takes the rest of the path).
export const artifactUrl = (id: string, path: string) => `${job(id)}/artifacts/${path.split("/").map(encodeURIComponent).join("/")}`;
export const listSweeps = () => json<{ sweeps: Sweep[] }>("/v1/sweeps");
export const getSweep = (id: string) => json<Sweep>(`/v1/sweeps/${encodeURIComponent(id)}`);
export const listPipelines = () => json<{ pipelines: Pipeline[] }>("/v1/pipelines");
export const getPipeline = (id: string) => json<Pipeline>(`/v1/pipelines/${encodeURIComponent(id)}`);
export const listModels = () => json<{ models: ModelVersion[] }>("/v1/models");
// REF is NAME, NAME:3 or NAME@alias; the owner names a tenant's model TENANT/NAME.
function modelUrl(ref: string, suffix = ""): string {
  const slash = ref.indexOf("/");
  const name = slash < 0 ? ref : ref.slice(slash + 1);
  const tenant = slash < 0 ? "" : `?tenant=${encodeURIComponent(ref.slice(0, slash))}`;
  return `/v1/models/${encodeURIComponent(name)}${suffix}${tenant}`;
}
export const getModel = (ref: string) => json<ModelVersion>(modelUrl(ref));
export const modelFileUrl = (ref: string) => modelUrl(ref, "/file");
export const cancelJob = (id: string) => json<Job>(`${job(id)}/cancel`, { method: "POST" });

export interface LogQuery {
  replica?: string;
  follow?: boolean;
  tail?: number;
  // false: leave out DLP_METRIC lines; "only": just them, from the files that
  // keep every one whatever the log's rotation.
  metrics?: boolean | "only";
}

// The NDJSON log stream (read it with readNdjson).
export async function openLogs(id: string, q: LogQuery, signal: AbortSignal): Promise<Response> {
  const params = new URLSearchParams();
  if (q.replica) params.set("replica", q.replica);
  if (q.follow) params.set("follow", "1");
  if (q.tail !== undefined) params.set("tail", String(q.tail));
  if (q.metrics !== undefined) {
    params.set("metrics", q.metrics === "only" ? "only" : q.metrics ? "1" : "0");
  }
  return request(`${job(id)}/logs?${params}`, { signal });
}
