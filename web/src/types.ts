// The JSON forms of dlpd's API: generated from schema/api.schema.json (the one
// description of the API; docs/api.md explains it) into generated/api.ts.
import type { Job, JobState } from "./generated/api";

export type {
  Artifact,
  GpuShare,
  Job,
  JobEvent,
  JobSpec,
  JobState,
  ModelVersion,
  Pipeline,
  PipelineJob,
  Profile,
  QueueStanding,
  RankSummary,
  Replica,
  ReplicaSpec,
  ReplicaUsage,
  Resources,
  Run,
  RunsPage,
  Session,
  Sweep,
  SweepParameter,
  SweepTrial,
  TenantUsage,
  UsageHistory,
  Why,
} from "./generated/api";

// A job as the pages hold it: a listing's (fields=summary: no spec, its labels)
// or a whole one (its spec, no labels of its own).
export type JobSummary = Omit<Job, "spec"> & { spec?: Job["spec"]; labels?: Record<string, string> };

export const JOB_STATES: JobState[] = ["Queued", "Running", "Succeeded", "Failed", "Cancelled"];

// A cell of the runs table: a number, text, or none.
export type RunValue = number | string | null;
