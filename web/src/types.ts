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
  minCount?: number; // the fewest it runs with (elastic worker); absent: count
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
  size?: number; // an elastic job that has started: the workers it runs with
  resizes?: number;
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
