// The JSON forms of dlpd's API (docs/api.md, docs/profiling.md).

export type JobState = "Queued" | "Running" | "Succeeded" | "Failed" | "Cancelled";
export const JOB_STATES: JobState[] = ["Queued", "Running", "Succeeded", "Failed", "Cancelled"];

// libdlp's codec (codec_job.cc, codec_spec.cc) writes these; optional members
// are the ones it leaves out.
export interface Replica {
  name: string;
  role: string;
  index: number;
  state: JobState;
  exitCode: number | null;
  signal: number | null;
  host: string; // "" until it starts
  pid: number; // 0 until it starts
  reason?: string;
  // The devices dlpd placed it on, as its CUDA_VISIBLE_DEVICES lists them, a
  // shared device with its share after it: "0", "0,1", "MIG-...", "0 (0.5)".
  gpus?: string;
}

export interface ReplicaSpec {
  role: string;
  count: number;
  command: string[];
  env: Record<string, string>;
  // gpu: whole GPUs as an integer, a share of one device as a fraction (0.5).
  resources: { cpu: string; memory: string; gpu: number; gpuType?: string };
}

export interface JobSpec {
  name: string;
  labels: Record<string, string>;
  framework: string;
  queue: string;
  priority: number;
  replicas: ReplicaSpec[];
  workdir: string;
  restartPolicy: { policy: string; maxRestarts: number; backoffSeconds: number };
  activeDeadlineSeconds: number;
  image?: string;
  logs?: { maxBytes: number };
  preemptible?: false;
  preemption?: { gracePeriodSeconds: number };
  dependsOn?: { job: string; condition: string }[];
}

// A job as a listing has it: fields=summary leaves out the spec and adds the
// spec's labels.
export interface JobSummary {
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
  preemptions: number;
  position?: number | null; // Queued jobs only
  estimatedStart?: string | null; // Queued jobs only
  spec?: JobSpec;
  labels?: Record<string, string>;
  replicas: Replica[];
  // How replicas on a shared device are kept apart: "MPS (...)" or "by
  // placement only (...)"; only while one of its devices is shared.
  gpuSharing?: string;
}

// GET /v1/jobs/ID and a cancel's answer: always with the spec.
export interface Job extends JobSummary {
  spec: JobSpec;
}

export interface JobEvent {
  time: string;
  type: string;
  message: string;
}

export interface Why {
  id: string;
  state: JobState;
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

// GET /v1/jobs with columns/where/sort/offset (docs/api.md, "Runs"): a
// summary with its sweep trial's parameters (trials only) and each asked
// column's value (null where the run has none).
export type RunValue = number | string | null;
export interface Run extends JobSummary {
  params?: Record<string, string>;
  values: Record<string, RunValue>;
}
export interface RunsPage {
  jobs: Run[];
  total: number;
  offset: number;
}

// GET /v1/sweeps/ID (libdlp's SweepToJson): parameter values as the strings
// substituted; objective and rungs as the trial reported them.
export interface SweepTrial {
  trial: number;
  job: string; // "" while Pending
  params: Record<string, string>;
  state: JobState | "Pending";
  reason: string;
  objective: number | null;
  resource: number;
  rungs: Record<string, number>;
  stopRequested: boolean;
}
export interface SweepParameter {
  name: string;
  type: "int" | "float" | "logfloat" | "categorical";
  min?: number;
  max?: number;
  steps?: number;
  values?: string[];
}
export interface Sweep {
  id: string;
  tenant: string;
  state: "Running" | "Succeeded" | "Cancelled" | "Failed";
  reason: string;
  created: string | null;
  finished: string | null;
  spec: {
    name: string;
    labels: Record<string, string>;
    objective: { metric: string; goal: "maximize" | "minimize" };
    search: { algorithm: "grid" | "random" | "asha"; seed: number; resource: string; min: number; max: number; reductionFactor: number };
    maxTrials: number;
    parallelism: number;
    parameters: SweepParameter[];
  };
  trials: SweepTrial[];
}

// GET /v1/pipelines/ID (libdlp's PipelineToJson).
export interface PipelineJob {
  name: string;
  job: string;
  state: JobState;
  reason: string;
  dependsOn: string[];
}
export interface Pipeline {
  id: string;
  name: string;
  state: JobState;
  created: string | null;
  jobs: PipelineJob[];
}

// GET /v1/models[/REF] (libdlp's ModelVersionToJson).
export interface ModelVersion {
  name: string;
  version: number;
  file: string;
  size: number;
  sha256: string;
  aliases: string[];
  job: string;
  jobSpec?: JobSpec;
  metrics: Record<string, number>;
  labels: Record<string, string>;
  gitCommit: string;
  registeredBy: string;
  created: string | null;
}

// GET /v1/jobs/ID/artifacts.
export interface Artifact {
  path: string;
  size: number;
  sha256: string;
  mtime: string;
}

// GET /v1/usage/history: CPU- and GPU-hours each tenant's jobs held, per
// bucket (oldest first) from `start`.
export interface UsageHistory {
  start: string;
  bucketSeconds: number;
  tenants: TenantUsage[];
}
export interface TenantUsage {
  tenant: string;
  cpuHours: number[];
  gpuHours: number[];
}
