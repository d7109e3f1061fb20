// The runs and run_attempts tables as services read them, and their mapping to the public
// Run shape. Both tables are partitioned by scheduled_time, which a run id encodes, so every
// lookup passes it and touches one partition.
//
// An attempt's row is written when the attempt ends; the attempt in progress lives on its run
// row (attempt, worker_id, attempt_started_at), and the attempts shown for a run add it from
// there, as the open attempt row it used to be (inProgressAttempt). An attempt that ended its run
// through the engine's completion stays on the run row too (migration 20261207060000), and is
// added from there as well (attemptOnRun), as the view run_attempt_history does in SQL.
import { idTime, isId, type Priority } from '@belfry/core';
import type { AttemptView, RunView } from '../schemas/resources';
import type { Queryable } from '../sql/tx';
import { sortTsSql } from './pagination';

export interface RunRow {
  id: string;
  tenant_id: string;
  job_id: string;
  scheduled_time: Date;
  /** scheduled_time plus the job's jitter offset (scheduled_time when the run has none) */
  due_at: Date;
  status: RunView['status'];
  skip_reason: RunView['skipReason'];
  attempt: number;
  trigger: RunView['trigger'];
  replay_of: string | null;
  priority: Priority;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  /** the worker of the attempt in progress (or the last one); absent where a row was built by hand */
  worker_id?: string | null;
  /** when the attempt in progress (or the last one) started */
  attempt_started_at?: Date | null;
  /**
   * The last attempt's outcome when the engine's completion ended the run with it (it has no
   * run_attempts row then; migration 20261207060000): its status, null otherwise. The other
   * attempt_* fields go with it.
   */
  attempt_status?: AttemptView['status'] | null;
  attempt_http_status?: number | null;
  attempt_duration_ms?: number | null;
  attempt_error?: string | null;
  attempt_response_snippet?: string | null;
  attempt_exit_code?: number | null;
  sort_ts: string;
}

interface AttemptRow {
  run_id: string;
  attempt: number;
  worker_id: string | null;
  status: AttemptView['status'];
  started_at: Date;
  finished_at: Date | null;
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
  response_snippet: string | null;
  exit_code: number | null;
}

export const RUN_COLUMNS = `r.id, r.tenant_id, r.job_id, r.scheduled_time,
  COALESCE(r.due_at, r.scheduled_time) AS due_at, r.status, r.skip_reason, r.attempt, r.trigger,
  r.replay_of, r.priority, r.created_at, r.started_at, r.finished_at, r.worker_id, r.attempt_started_at,
  r.attempt_status, r.http_status AS attempt_http_status, r.duration_ms AS attempt_duration_ms,
  r.last_error AS attempt_error, r.response_snippet AS attempt_response_snippet, r.exit_code AS attempt_exit_code`;

/** RUN_COLUMNS plus the cursor's sort key over `column`. */
export function runSelect(sortColumn: string): string {
  return `SELECT ${RUN_COLUMNS}, ${sortTsSql(sortColumn)} AS sort_ts FROM runs r`;
}

/** The partition key of a run id, or null for anything that is not a run id. */
export function runKey(runId: string): { id: string; scheduledTime: Date } | null {
  if (!isId('run', runId)) return null;
  const scheduledTime = idTime(runId);
  return scheduledTime ? { id: runId, scheduledTime } : null;
}

export async function selectRun(db: Queryable, tenantId: string, runId: string, lock = false): Promise<RunRow | null> {
  const key = runKey(runId);
  if (!key) return null;
  const { rows } = await db.query<RunRow>(
    `${runSelect('r.scheduled_time')} WHERE r.id = $1 AND r.scheduled_time = $2 AND r.tenant_id = $3${lock ? ' FOR UPDATE' : ''}`,
    [key.id, key.scheduledTime, tenantId],
  );
  return rows[0] ?? null;
}

/**
 * Attempts of several runs in one query, grouped by run id, each in attempt order: the
 * run_attempts rows, then the attempt a run row holds (attemptOnRun) and the one in progress.
 * The rows are read from the table, not through run_attempt_history: the view's check of each
 * row against its run is not pruned by the runs' keys, and for a page of runs spread over many
 * days the planner read every partition of runs for it (36 ms against 3 ms for 50 runs over 37
 * days); the run rows are at hand here anyway.
 */
export async function loadAttempts(
  db: Queryable,
  tenantId: string,
  runs: RunRow[],
): Promise<Map<string, AttemptView[]>> {
  const byRun = new Map<string, AttemptView[]>(runs.map((r) => [r.id, []]));
  if (!runs.length) return byRun;
  const { rows } = await db.query<AttemptRow>(
    `SELECT run_id, attempt, worker_id, status, started_at, finished_at, http_status, duration_ms, error, response_snippet,
            exit_code
       FROM run_attempts
      WHERE run_id = ANY($1::text[]) AND scheduled_time = ANY($2::timestamptz[]) AND tenant_id = $3
      ORDER BY run_id, attempt`,
    [runs.map((r) => r.id), [...new Set(runs.map((r) => r.scheduled_time.toISOString()))], tenantId],
  );
  for (const a of rows) {
    byRun.get(a.run_id)?.push({
      attempt: a.attempt,
      workerId: a.worker_id,
      startedAt: a.started_at.toISOString(),
      finishedAt: a.finished_at?.toISOString() ?? null,
      status: a.status,
      httpStatus: a.http_status,
      durationMs: a.duration_ms,
      error: a.error,
      responseSnippet: a.response_snippet,
      exitCode: a.exit_code,
    });
  }
  for (const run of runs) {
    const last = attemptOnRun(run);
    if (last) {
      // a row for the same attempt (left 'running' by a process of a version before
      // attempt_row_at_end) is hidden behind the run's outcome, as in run_attempt_history
      const recorded = (byRun.get(run.id) ?? []).filter((a) => a.attempt !== last.attempt);
      byRun.set(run.id, [...recorded, last]);
    }
    const open = inProgressAttempt(run, byRun.get(run.id) ?? []);
    if (open) byRun.get(run.id)?.push(open);
  }
  return byRun;
}

/** The attempt that ended the run, held on its row (no run_attempts row of its own). */
function attemptOnRun(run: RunRow): AttemptView | null {
  if (!run.attempt_status) return null;
  const startedAt = run.attempt_started_at ?? run.started_at ?? run.finished_at;
  if (!startedAt) return null;
  return {
    attempt: run.attempt,
    workerId: run.worker_id ?? null,
    startedAt: startedAt.toISOString(),
    finishedAt: run.finished_at?.toISOString() ?? null,
    status: run.attempt_status,
    httpStatus: run.attempt_http_status ?? null,
    durationMs: run.attempt_duration_ms ?? null,
    error: run.attempt_error ?? null,
    responseSnippet: run.attempt_response_snippet ?? null,
    exitCode: run.attempt_exit_code ?? null,
  };
}

/**
 * The attempt a run holds without a row yet: its current attempt when the run is running (also
 * claimed ahead of its due time, starting then), or was cancelled while it ran and its worker has
 * not yet reported the end. Shown as running, as the row opened at the claim used to be.
 */
function inProgressAttempt(run: RunRow, recorded: AttemptView[]): AttemptView | null {
  if (run.attempt < 1 || (run.status !== 'running' && run.status !== 'cancelled')) return null;
  if (recorded.some((a) => a.attempt === run.attempt)) return null;
  const startedAt = run.attempt_started_at ?? run.started_at;
  if (!startedAt) return null;
  return {
    attempt: run.attempt,
    workerId: run.worker_id ?? null,
    startedAt: startedAt.toISOString(),
    finishedAt: null,
    status: 'running',
    httpStatus: null,
    durationMs: null,
    error: null,
    responseSnippet: null,
    exitCode: null,
  };
}

export function toRunView(row: RunRow, attempts: AttemptView[]): RunView {
  return {
    id: row.id,
    jobId: row.job_id,
    scheduledTime: row.scheduled_time.toISOString(),
    dueAt: row.due_at.toISOString(),
    status: row.status,
    skipReason: row.skip_reason,
    attempt: row.attempt,
    trigger: row.trigger,
    replayOf: row.replay_of,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    attempts,
  };
}

export async function withAttempts(db: Queryable, tenantId: string, rows: RunRow[]): Promise<RunView[]> {
  const attempts = await loadAttempts(db, tenantId, rows);
  return rows.map((r) => toRunView(r, attempts.get(r.id) ?? []));
}
