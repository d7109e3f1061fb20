// The REST API's shapes as the CLI sees them, written by hand from shared/CONTRACT.md §2
// (the CLI talks to a server, not to the API package, so it does not import the server's
// schemas and keeps working against any server that honours the contract).

export type JobStatus = 'active' | 'paused' | 'completed';
export type RunStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'dead' | 'cancelled' | 'skipped';
export type Priority = 'high' | 'normal' | 'low';
export type MisfirePolicy = 'run_once' | 'catch_up' | 'skip';
export type OverlapPolicy = 'allow' | 'skip';

export const JOB_STATUSES: readonly JobStatus[] = ['active', 'paused', 'completed'];
export const RUN_STATUSES: readonly RunStatus[] = [
  'pending',
  'running',
  'succeeded',
  'failed',
  'dead',
  'cancelled',
  'skipped',
];
export const PRIORITIES: readonly Priority[] = ['high', 'normal', 'low'];
export const MISFIRE_POLICIES: readonly MisfirePolicy[] = ['run_once', 'catch_up', 'skip'];
export const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['allow', 'skip'];

export type Schedule =
  | { type: 'once'; runAt: string }
  | { type: 'cron'; expression: string; timezone: string }
  | { type: 'interval'; everySeconds: number };

export interface Target {
  type: 'http';
  url: string;
  method: string;
  headers: Record<string, string>;
}

export interface Retry {
  maxAttempts: number;
  initialDelaySeconds: number;
  maxDelaySeconds: number;
}

export interface Job {
  id: string;
  name: string;
  schedule: Schedule;
  target: Target;
  payload: unknown;
  retry: Retry;
  timeoutSeconds: number;
  priority: Priority;
  misfirePolicy: MisfirePolicy;
  overlapPolicy: OverlapPolicy;
  status: JobStatus;
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Attempt {
  attempt: number;
  workerId: string | null;
  startedAt: string;
  finishedAt: string | null;
  status: string;
  httpStatus: number | null;
  durationMs: number | null;
  error: string | null;
  responseSnippet: string | null;
}

export interface Run {
  id: string;
  jobId: string;
  scheduledTime: string;
  status: RunStatus;
  skipReason: 'misfire' | 'overlap' | null;
  attempt: number;
  trigger: 'schedule' | 'manual' | 'replay';
  replayOf: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  attempts: Attempt[];
}

/** A run of the dead letter: dead, replayed or not. */
export interface DeadLetterRun extends Run {
  /** the latest replay of this run, or null */
  replayedBy: string | null;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** The body of POST /jobs: what `jobs create` builds from flags or reads from --file. */
export interface JobCreateBody {
  name?: string;
  schedule?: Schedule | { type: 'cron'; expression: string; timezone?: string };
  target?: Partial<Target>;
  payload?: unknown;
  retry?: Partial<Retry>;
  timeoutSeconds?: number;
  priority?: Priority;
  misfirePolicy?: MisfirePolicy;
  overlapPolicy?: OverlapPolicy;
  [field: string]: unknown;
}

export type DeadLetterReplayBody =
  | { runIds: string[]; dryRun?: boolean }
  | { all: true; jobId?: string; dryRun?: boolean };

export type ReplayResult = { replayed: number } | { wouldReplay: number };

/** RFC 9457 problem details, as the API sends errors. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail: string;
  errors?: { path: string; message: string }[];
}
