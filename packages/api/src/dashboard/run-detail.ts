// One run as the run page shows it: the public Run (from the runs service) plus what only
// the dashboard shows: the request headers each attempt sent (redacted by the engine before
// they were stored, and stored without those the run itself says, which are put back here), the run's last error, its job's name, and the replays made of it.
import type { Actor, ServiceDeps } from '../context';
import type { AttemptView, RunView } from '../schemas/resources';
import { getRun } from '../services/runs';
import { runKey } from '../services/run-rows';
import { withDerivedHeaders } from '@belfry/handlers/schemas';

export interface RunDetail {
  run: RunView;
  /** targetType: the job's target kind now (the attempt card words what came back by kind) */
  job: { id: string; name: string; deleted: boolean; targetType: string | null } | null;
  lastError: string | null;
  attempts: Array<AttemptView & { requestHeaders: Record<string, string> | null; lagMs: number | null }>;
  replays: Array<{ id: string; status: RunView['status']; createdAt: string }>;
}

export async function runDetail(deps: ServiceDeps, actor: Actor, runId: string): Promise<RunDetail> {
  const run = await getRun(deps, actor, runId); // authorises runs:read; 404 for another tenant's run
  const key = runKey(run.id);
  const [extra, headers, replays] = await Promise.all([
    deps.pool.query<{
      name: string | null;
      deleted: boolean | null;
      last_error: string | null;
      target_type: string | null;
    }>(
      `SELECT j.name, j.deleted_at IS NOT NULL AS deleted, r.last_error, j.target->>'type' AS target_type
         FROM runs r LEFT JOIN jobs j ON j.id = r.job_id AND j.tenant_id = r.tenant_id
        WHERE r.id = $1 AND r.scheduled_time = $2 AND r.tenant_id = $3`,
      [run.id, key?.scheduledTime, actor.tenantId],
    ),
    deps.pool.query<{ attempt: number; request_headers: Record<string, string> | null }>(
      `SELECT attempt, request_headers FROM run_attempt_history WHERE run_id = $1 AND scheduled_time = $2 AND tenant_id = $3`,
      [run.id, key?.scheduledTime, actor.tenantId],
    ),
    // A replay is requested after the original was scheduled, so only later partitions are read.
    deps.pool.query<{ id: string; status: RunView['status']; created_at: Date }>(
      `SELECT id, status, created_at FROM runs
        WHERE tenant_id = $1 AND replay_of = $2 AND scheduled_time >= $3
        ORDER BY scheduled_time DESC LIMIT 20`,
      [actor.tenantId, run.id, key?.scheduledTime],
    ),
  ]);
  const meta = extra.rows[0];
  const byAttempt = new Map(headers.rows.map((h) => [h.attempt, h.request_headers]));
  const scheduled = Date.parse(run.scheduledTime);
  return {
    run,
    job: meta?.name
      ? { id: run.jobId, name: meta.name, deleted: Boolean(meta.deleted), targetType: meta.target_type ?? null }
      : null,
    lastError: meta?.last_error ?? null,
    attempts: run.attempts.map((a) => {
      const stored = byAttempt.get(a.attempt);
      return {
        ...a,
        // stored without the headers that follow from the run and the attempt (stored-headers.ts
        // in @belfry/handlers): put back, so the page shows what was sent
        requestHeaders: stored
          ? withDerivedHeaders(stored, {
              runId: run.id,
              jobId: run.jobId,
              scheduledTime: run.scheduledTime,
              attempt: a.attempt,
            })
          : null,
        lagMs: a.attempt === 1 ? Math.max(0, Date.parse(a.startedAt) - scheduled) : null,
      };
    }),
    replays: replays.rows.map((r) => ({ id: r.id, status: r.status, createdAt: r.created_at.toISOString() })),
  };
}
