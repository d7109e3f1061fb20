import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { closeCancelledAttempt, completeAttempts, failExpiredRuns, finishPullSuccesses, migrate } from '../src/index';
import { createDatabaseMigratedBefore, dropTestDatabase } from '../../../test/db';
import { succeededOutcome } from './outcomes';

const MIGRATION = '20261201120400_attempt_row_at_end';

describe('upgrade to attempt rows written at their end', () => {
  it('moves the open attempts of running runs onto the run row; their ends write one row each', async () => {
    const { name, url } = await createDatabaseMigratedBefore(MIGRATION, 'belfry_test_attempts');
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query(`INSERT INTO tenants (id, name, slug) VALUES ('ten_up', 'up', 'up')`);
      await client.query(
        `INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, target, partition)
         VALUES ('job_up', 'ten_up', 'up', 'cron', '* * * * *', '{"type":"http"}', 1)`,
      );
      const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 120_000);
      const t = (s: number) => new Date(at.getTime() + s * 1000);
      // A (engine, second attempt running), B (pull, running), C (cancelled while running),
      // D (running, lease expired): each with the open attempt row the old claim wrote.
      const runs: Array<[string, string, number, string, Date, string]> = [
        ['run_a', 'running', 2, 'w-engine', t(30), "now() + interval '1 minute'"],
        ['run_b', 'running', 1, 'w-pull', t(1), "now() + interval '1 minute'"],
        ['run_c', 'cancelled', 1, 'w-cancel', t(2), 'NULL'],
        ['run_d', 'running', 1, 'w-dead', t(3), "now() - interval '1 second'"],
      ];
      for (const [id, status, attempt, worker, start, lease] of runs) {
        await client.query(
          `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger, worker_id, lease_expires_at,
                             started_at)
           VALUES ($1, 'ten_up', 'job_up', $2, $3, $4, 'manual', $5, ${lease}, $2)`,
          [id, at, status, attempt, worker],
        );
        if (attempt > 1)
          await client.query(
            `INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at,
                                       finished_at, error)
             VALUES ($1, $2, 'ten_up', 'job_up', 1, 'w-first', 'failed', $2, $2, 'HTTP 503')`,
            [id, at],
          );
        await client.query(
          `INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at)
           VALUES ($1, $2, 'ten_up', 'job_up', $3, $4, 'running', $5)`,
          [id, at, attempt, worker, start],
        );
      }

      expect((await migrate(url, { partitions: 16 })).applied).toContain(MIGRATION);
      const moved = await client.query(
        `SELECT id, attempt_started_at FROM runs WHERE attempt_started_at IS NOT NULL ORDER BY id`,
      );
      expect(moved.rows).toEqual([
        { id: 'run_a', attempt_started_at: t(30) },
        { id: 'run_b', attempt_started_at: t(1) },
        { id: 'run_d', attempt_started_at: t(3) },
      ]);
      const left = await client.query(`SELECT run_id, attempt, status FROM run_attempts ORDER BY run_id, attempt`);
      expect(left.rows).toEqual([
        { run_id: 'run_a', attempt: 1, status: 'failed' },
        { run_id: 'run_c', attempt: 1, status: 'running' },
      ]);

      // Their ends, as the new version records them.
      const done = await completeAttempts(client, 'w-engine', [
        succeededOutcome(
          { id: 'run_a', scheduled_time: at, attempt: 2 },
          { durationMs: 12, responseSnippet: 'ok', requestHeaders: { 'webhook-id': 'run_a' } },
        ),
      ]);
      expect(done.map((r) => r.id)).toEqual(['run_a']);
      const pulled = await finishPullSuccesses(client, [
        {
          lease: { runId: 'run_b', scheduledTime: at, tenantId: 'ten_up', attempt: 1, worker: 'w-pull' },
          output: 'done',
        },
      ]);
      expect(pulled.get('run_b')?.map((r) => [r.a_attempt, r.a_status, r.a_worker_id, r.a_started_at])).toEqual([
        [1, 'succeeded', 'w-pull', t(1)],
      ]);
      const cancel = { runId: 'run_c', scheduledTime: at, tenantId: 'ten_up', attempt: 1, worker: 'w-cancel' };
      await closeCancelledAttempt(client, cancel);
      await closeCancelledAttempt(client, cancel);
      expect(
        await failExpiredRuns(client, [
          { id: 'run_d', scheduledTime: at, attempt: 1, status: 'dead', nextAttemptAt: null, error: 'lease expired' },
        ]),
      ).toEqual(['run_d']);

      const history = await client.query(
        `SELECT run_id, attempt, status, worker_id, started_at, finished_at IS NOT NULL AS ended, error
           FROM run_attempt_history ORDER BY run_id, attempt`,
      );
      expect(history.rows).toEqual([
        {
          run_id: 'run_a',
          attempt: 1,
          status: 'failed',
          worker_id: 'w-first',
          started_at: at,
          ended: true,
          error: 'HTTP 503',
        },
        {
          run_id: 'run_a',
          attempt: 2,
          status: 'succeeded',
          worker_id: 'w-engine',
          started_at: t(30),
          ended: true,
          error: null,
        },
        {
          run_id: 'run_b',
          attempt: 1,
          status: 'succeeded',
          worker_id: 'w-pull',
          started_at: t(1),
          ended: true,
          error: null,
        },
        {
          run_id: 'run_c',
          attempt: 1,
          status: 'cancelled',
          worker_id: 'w-cancel',
          started_at: t(2),
          ended: true,
          error: 'run cancelled while running',
        },
        {
          run_id: 'run_d',
          attempt: 1,
          status: 'failed',
          worker_id: 'w-dead',
          started_at: t(3),
          ended: true,
          error: 'lease expired',
        },
      ]);
    } finally {
      await client.end().catch(() => {});
      await dropTestDatabase(name);
    }
  });
});
