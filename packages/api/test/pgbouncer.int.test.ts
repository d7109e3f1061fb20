// Belfry behind a real PgBouncer in transaction pooling mode: the API (pool, Prisma, pg-boss)
// and an engine node's pools go through the pooler, while LISTEN, session locks and
// migrations use BELFRY_DIRECT_DATABASE_URL. Scheduled runs are delivered end to end; the
// engine's SIGSTOP safety (idle_in_transaction_session_timeout) holds through the pooler; and
// an engine given only the pooled URL refuses to start, saying what to set.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool, findRepoRoot, reachesServerDirectly, withTransaction } from '@belfry/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import { childEnv } from '../../../test/env';
import { type Sink, startSink } from '../../../test/fixtures';
import { type PgBouncer, startPgBouncer } from '../../../test/pgbouncer';
import { client, createHarness, type Harness, makeTenant } from './support';

let bouncer: PgBouncer;
let h: Harness;
let sink: Sink;
let node: EngineNode | undefined;

beforeAll(async () => {
  bouncer = await startPgBouncer(inject('serverUrl'));
  h = await createHarness({ connectVia: (database) => bouncer.url(database) });
  sink = await startSink();
});
afterAll(async () => {
  await node?.stop();
  await sink?.close();
  await h?.close();
  await bouncer?.stop();
});

/** The pooler's clients (its admin console), by application name. */
async function pooledClients(): Promise<string[]> {
  const admin = new pg.Client({ connectionString: bouncer.url('pgbouncer') });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ application_name: string }>('SHOW CLIENTS');
    return rows.map((r) => r.application_name);
  } finally {
    await admin.end();
  }
}

describe('through PgBouncer in transaction pooling mode', () => {
  it('an engine node and the API deliver scheduled runs end to end', async () => {
    node = await startEngineNode({
      databaseUrl: bouncer.url(h.db.name),
      nodeId: 'pgbouncer-1',
      env: {
        BELFRY_DIRECT_DATABASE_URL: h.db.url,
        BELFRY_ENCRYPTION_KEY: 'test-encryption-key-material',
        BELFRY_SHUTDOWN_GRACE_SECONDS: '1',
      },
    });
    const t = await makeTenant(h);
    const api = client(h, t.key);
    const every = await api.post('/api/v1/jobs', {
      name: 'every second',
      schedule: { type: 'cron', expression: '* * * * * *', timezone: 'UTC' },
      target: { type: 'http', url: sink.url },
    });
    expect(every.status).toBe(201);
    const runAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2_000);
    const once = await api.post('/api/v1/jobs', {
      name: 'one-off',
      schedule: { type: 'once', runAt: runAt.toISOString() },
      target: { type: 'http', url: sink.url },
    });
    const of = (jobId: string) => sink.deliveries.filter((d) => d.headers['belfry-job-id'] === jobId);
    await sink.waitFor(() => of(every.body.id).length >= 4 && of(once.body.id).length === 1);
    // On time, and each occurrence once.
    const times = of(every.body.id).map((d) => String(d.headers['belfry-scheduled-time']));
    expect(new Set(times).size).toBe(times.length);
    const delivered = of(once.body.id)[0];
    expect(delivered?.headers['belfry-scheduled-time']).toBe(runAt.toISOString());
    expect(delivered?.at).toBeGreaterThanOrEqual(runAt.getTime());

    // A pause through the pooler stops the schedule; the one-off completed once it ran.
    expect((await api.post(`/api/v1/jobs/${every.body.id}/pause`)).body.status).toBe('paused');
    const waitCompleted = async () => {
      for (;;) {
        const job = await api.get(`/api/v1/jobs/${once.body.id}`);
        if (job.body.status === 'completed') return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await waitCompleted();

    // The engine's pools went through the pooler; its LISTEN connection did not.
    const clients = await pooledClients();
    expect(clients).toContain('belfry-engine:pgbouncer-1');
    expect(clients).toContain('belfry-queue');
    expect(clients).not.toContain('belfry-wakeups');
    const direct = await h.db.pool.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND application_name = 'belfry-wakeups'`,
      [h.db.name],
    );
    expect(direct.rowCount).toBe(1);
  });

  it('a transaction left idle by a stopped client is ended by the server, through the pooler too', async () => {
    const pool = createPool(bouncer.url(h.db.name), {
      max: 2,
      name: 'belfry-test-idle',
      transactionSettings: { idle_in_transaction_session_timeout: 300, lock_timeout: 1000 },
    });
    pool.on('error', () => {});
    try {
      let inside = '';
      const outcome = await withTransaction(
        pool,
        async (c) => {
          const { rows } = await c.query<{ setting: string }>(
            `SELECT current_setting('idle_in_transaction_session_timeout') AS setting`,
          );
          inside = rows[0]?.setting ?? '';
          await c.query('SELECT id FROM jobs LIMIT 1 FOR UPDATE');
          // A stopped process sends nothing: the server gives up on the transaction.
          await new Promise((r) => setTimeout(r, 1_000));
          await c.query('SELECT 1');
          return 'still open';
        },
        { maxTries: 1 },
      ).catch((err: Error) => err.message);
      expect(inside).toBe('300ms');
      expect(outcome).toMatch(/idle-in-transaction|terminat|connection error/i);
      // Outside a transaction the setting is not left behind on the server connection.
      const { rows } = await pool.query<{ setting: string }>(
        `SELECT current_setting('idle_in_transaction_session_timeout') AS setting`,
      );
      expect(rows[0]?.setting).toBe('0');
    } finally {
      await pool.end();
    }
  });

  it('named statements are kept on a direct URL, never on one through the pooler (the next transaction may land on another server connection)', async () => {
    const target = (url: string, directConfigured: boolean) => ({
      url,
      directUrl: h.db.url,
      directConfigured,
      embedded: null,
      release: async () => {},
    });
    expect(await reachesServerDirectly(target(bouncer.url(h.db.name), true))).toBe(false);
    expect(await reachesServerDirectly(target(h.db.url, true))).toBe(true);
    expect(await reachesServerDirectly(target(h.db.url, false))).toBe(true);
  });

  it('an engine given only the pooled URL refuses to start, in one sentence saying what to set', async () => {
    const root = findRepoRoot();
    const child = spawn(join(root, 'node_modules/.bin/node'), ['--import', 'tsx', 'apps/engine/src/main.ts'], {
      cwd: root,
      env: childEnv({ DATABASE_URL: bouncer.url(h.db.name), BELFRY_METRICS_PORT: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/connection pooler.*set BELFRY_DIRECT_DATABASE_URL/);
  });
});
