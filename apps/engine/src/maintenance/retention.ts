// Keeps history cheap: creates the next days' run partitions ahead of time, drops whole daily
// partitions older than the longest tenant retention, deletes (in small batches) the rows of
// tenants with a shorter retention, and clears expired idempotency keys and long-gone nodes.
// One node at a time does it (advisory lock).
import { Backoff, FINISHED_RUN_STATUSES } from '@belfry/core';
import type pg from 'pg';
import type { Log } from '../logger';

export interface RetentionConfig {
  intervalMs: number;
  daysAhead: number;
  deleteBatch: number;
}

const LOCK = 4242003;

export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  // A pass the database was away for is tried again within minutes, not at the next interval.
  private readonly backoff = new Backoff({ initialMs: 5_000, maxMs: 5 * 60_000 });

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: RetentionConfig,
    private readonly log: Log,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    const next = (delayMs: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.running = this.pass().then(next);
      }, delayMs);
      this.timer.unref();
    };
    next(await this.pass());
  }

  /** One pass; answers the delay before the next. */
  private async pass(): Promise<number> {
    try {
      await this.runOnce();
      this.backoff.succeed();
      return this.config.intervalMs;
    } catch (err) {
      this.log.error({ err }, 'retention failed');
      return Math.min(this.config.intervalMs, this.backoff.fail());
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  async runOnce(): Promise<{ created: number; dropped: number; deleted: number } | null> {
    const client = await this.pool.connect();
    // Checked out, the client has no listener of the pool's: a session that dies mid-pass
    // (server restart) must fail the pass, not the process. It is then not returned to the pool.
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LOCK]);
      if (!rows[0]?.ok) return null;
      try {
        const created = await client.query<{ n: number }>(
          `SELECT belfry_ensure_history_partitions((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + $1::int) AS n`,
          [this.config.daysAhead],
        );
        const longest = await client.query<{ days: number }>(
          'SELECT coalesce(max(retention_days), 30) AS days FROM tenants',
        );
        const days = longest.rows[0]?.days ?? 30;
        const dropped = await client.query<{ n: number }>(
          `SELECT belfry_drop_history_partitions((now() AT TIME ZONE 'UTC')::date - $1::int) AS n`,
          [days],
        );
        let deleted = 0;
        const shorter = await client.query<{ id: string; retention_days: number }>(
          'SELECT id, retention_days FROM tenants WHERE retention_days < $1',
          [days],
        );
        for (const t of shorter.rows) deleted += await this.deleteTenantHistory(client, t.id, t.retention_days);
        // The default partition only catches runs far outside the daily range; trim it too.
        for (const table of ['runs_default', 'run_attempts_default']) {
          const r = await client.query(
            `DELETE FROM ${table} WHERE scheduled_time < now() - make_interval(days => $1)`,
            [days],
          );
          deleted += r.rowCount ?? 0;
        }
        await client.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`);
        await client.query(`DELETE FROM engine_nodes WHERE heartbeat_at < now() - interval '1 day'`);
        await client.query(`DELETE FROM rate_limit_buckets WHERE updated_at < now() - interval '1 hour'`);
        const result = { created: created.rows[0]?.n ?? 0, dropped: dropped.rows[0]?.n ?? 0, deleted };
        if (result.created || result.dropped || result.deleted) this.log.info(result, 'retention pass');
        return result;
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [LOCK]).catch((err: Error) => {
          broken ??= err; // a session that cannot unlock must not go back to the pool holding the lock
        });
      }
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  private async deleteTenantHistory(client: pg.PoolClient, tenantId: string, days: number): Promise<number> {
    let total = 0;
    for (;;) {
      const { rowCount } = await client.query(
        `WITH doomed AS (
           SELECT id, scheduled_time FROM runs
           WHERE tenant_id = $1 AND scheduled_time < now() - make_interval(days => $2) AND status = ANY($4::text[])
           LIMIT $3
         ), gone AS (
           DELETE FROM run_attempts a USING doomed d WHERE a.run_id = d.id AND a.scheduled_time = d.scheduled_time
         )
         DELETE FROM runs r USING doomed d WHERE r.id = d.id AND r.scheduled_time = d.scheduled_time`,
        [tenantId, days, this.config.deleteBatch, FINISHED_RUN_STATUSES],
      );
      total += rowCount ?? 0;
      if (!rowCount || rowCount < this.config.deleteBatch) return total;
    }
  }
}
