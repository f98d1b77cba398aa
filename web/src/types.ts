// The JSON forms of dlpd's API (docs/api.md, docs/profiling.md).

export type JobState = "Queued" | "Running" | "Succeeded" | "Failed" | "Cancelled";
export const JOB_STATES: JobState[] = ["Queued", "Running", "Succeeded", "Failed", "Cancelled"];

export interface Replica {
  name: string;
  role: string;
  index: number;
  state: string;
  exitCode: number | null;
  signal: number | null;
  host?: string;
  pid?: number;
  reason?: string;
  gpus?: string[];
}

export interface ReplicaSpec {
  role: string;
  count: number;
  command?: string[];
  resources?: { cpu?: string; memory?: string; gpu?: number | string };
}

export interface JobSpec {
  name: string;
  labels?: Record<string, string>;
  queue?: string;
  priority?: number;
  replicas?: ReplicaSpec[];
  [key: string]: unknown;
}

export interface Job {
  id: string;
  name: string;
  tenant: string;
  queue: string;
  state: JobState;
  reason: string;
  created: string;
  started: string | null;
  finished: string | null;
  exitCode: number | null;
  restartCount: number;
  preemptions?: number;
  position?: number | null;
  estimatedStart?: string | null;
  spec: JobSpec; // absent from a fields=summary listing
  labels?: Record<string, string>; // a summary's (the spec's labels)
  replicas: Replica[];
}

export interface JobEvent {
  time: string;
  type: string;
  message: string;
}

export interface Why {
  id: string;
  state: string;
  reason: string;
  position: number | null;
  estimatedStart: string | null;
  trace: string[];
}

export interface ReplicaUsage {
  replica: string;
  pid: number;
  cpuPercent: number;
  rssBytes: number;
  gpuUtilPercent: number | null;
  gpuMemoryBytes: number | null;
  time: string;
}

export type Resources = Record<string, number | string>;

export interface QueueStanding {
  name: string;
  cohort?: string;
  nominal?: Resources;
  used?: Resources;
  borrowed?: Resources;
  lent?: Resources;
  pending: number;
  running: number;
  share: number;
}

export interface Session {
  tenant: string;
  admin: boolean;
  csrf: string;
}

// GET /v1/jobs/ID/profile: `dlp profile -o json` (libdlp's ProfileToJson).
export interface RankSummary {
  rank: number;
  host: string;
  steps: number;
  stepP50Ms: number;
  stepP95Ms: number;
  stepMaxMs: number;
  commMs: number; // per step, inside collectives
  workMs: number; // per step, outside them
  phasesMs: Record<string, number>;
}

export interface Profile {
  ranks: number;
  perRank: RankSummary[];
  straggler: { rank: number; ratio: number; phase: string; message: string } | null;
}
