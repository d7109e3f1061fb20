// Executing one claimed attempt on its own, with the real HTTP handler and a loopback target:
// never before the scheduled time (on the database clock), signed with the tenant's secret,
// not at all when aborted first, and released rather than executed when the run's kind belongs
// to another lane than the one it was fetched from.
import { Keyring } from '@belfry/core';
import { type ClaimedRun, claimRuns, type QueueClient } from '@belfry/db';
import { createHandlerRegistry, defaultHandlers, type HandlerRegistry } from '@belfry/handlers';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertJob, insertTenant, type Sink, startSink, TEST_KEYRING } from '../../../../test/fixtures';
import { DbClock } from '../../src/db-clock';
import { type ExecuteDeps, executeAttempt } from '../../src/worker/execute';
import { SigningSecrets } from '../../src/worker/secrets';
import { executionOf, queueRuns, createQueueTestDatabase, type QueueTestDatabase } from '../support';

describe('executeAttempt', () => {
  let db: QueueTestDatabase;
  let boss: QueueClient;
  let sink: Sink;
  let handlers: HandlerRegistry;
  let clock: DbClock;
  let deps: ExecuteDeps;
  let tenant: { id: string; secret: string };
  let jobId: string;
  const lags: number[] = [];

  beforeAll(async () => {
    db = await createQueueTestDatabase();
    boss = db.boss;
    sink = await startSink();
    handlers = createHandlerRegistry(defaultHandlers({ allowPrivateTargets: true }));
    clock = new DbClock(db.pool);
    await clock.sync();
    deps = {
      handlers,
      secrets: new SigningSecrets(db.pool, TEST_KEYRING),
      clock,
      onStart: (lag) => lags.push(lag),
    };
    tenant = await insertTenant(db.pool);
    jobId = (
      await insertJob(db.pool, tenant.id, {
        schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
        url: sink.url,
        payload: { hello: 'world' },
        partitions: db.partitions,
      })
    ).id;
  });
  afterAll(async () => {
    await handlers?.close();
    await sink?.close();
    await db?.destroy();
  });

  /** A run of the job claimed by this worker, scheduled `inMs` from now (database clock). */
  const claim = async (inMs: number, of = jobId): Promise<ClaimedRun> => {
    const [run] = await queueRuns(db.pool, boss, {
      tenantId: tenant.id,
      jobId: of,
      times: [new Date(clock.now() + inMs)],
    });
    const [claimed] = await claimRuns(db.pool, 'execute-test', 30_000, [run!.id], [run!.scheduled_time]);
    return claimed!;
  };
  const execution = (run: ClaimedRun) => executionOf(run);

  it('calls the target no earlier than the scheduled time, signed, and reports what it answered', async () => {
    const run = await claim(400);
    const outcome = await executeAttempt(deps, execution(run));

    expect(outcome).toMatchObject({ ok: true, httpStatus: 200, responseSnippet: 'ok' });
    const [delivery] = sink.deliveries.filter((d) => d.headers['webhook-id'] === run.id);
    expect(delivery!.at + Math.ceil(clock.offset)).toBeGreaterThanOrEqual(run.scheduled_time.getTime());
    expect(lags.at(-1)).toBeGreaterThanOrEqual(0);
    const signed = new Webhook(tenant.secret).verify(delivery!.body, {
      'webhook-id': String(delivery!.headers['webhook-id']),
      'webhook-timestamp': String(delivery!.headers['webhook-timestamp']),
      'webhook-signature': String(delivery!.headers['webhook-signature']),
    });
    expect(signed).toEqual({ hello: 'world' });
  });

  it('does not call the target when the attempt is aborted before its time', async () => {
    const run = await claim(60_000);
    const e = execution(run);
    const pending = executeAttempt(deps, e);
    e.abort.abort(new Error('run was cancelled'));
    expect(await pending).toMatchObject({
      ok: false,
      failure: 'connection',
      error: 'not started: stopped before it was due',
    });
    expect(sink.deliveries.filter((d) => d.headers['webhook-id'] === run.id)).toEqual([]);
  });

  it('releases a run fetched from another lane than its kind runs in, without calling it', async () => {
    const run = await claim(0);
    const e = { ...execution(run), lane: 'container' as const };
    const outcome = await executeAttempt(deps, e);
    expect(e.reason).toBe('rerouted');
    expect(outcome).toMatchObject({
      ok: false,
      error: 'rerouted: the target is now http, which runs in the push lane',
    });
    expect(sink.deliveries.filter((d) => d.headers['webhook-id'] === run.id)).toEqual([]);
  });

  it('fails a run whose kind has no handler on this node as not retryable', async () => {
    const run = await claim(0);
    const outcome = await executeAttempt({ ...deps, handlers: createHandlerRegistry([]) }, execution(run));
    expect(outcome).toMatchObject({ ok: false, failure: 'invalid', error: "no handler for target type 'http'" });
  });

  it('sends write-only headers revealed from their sealed copy, and stores them masked', async () => {
    const secretJob = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
      url: sink.url,
      headers: { Authorization: 'Bearer sk_live_engine', 'x-team': 'ops' },
      partitions: db.partitions,
    });
    const { rows } = await db.pool.query('SELECT target::text AS target FROM jobs WHERE id = $1', [secretJob.id]);
    expect(rows[0].target).not.toContain('sk_live_engine');
    const run = await claim(0, secretJob.id);
    expect(run.target).toMatchObject({ headers: { Authorization: '***' } });
    const outcome = await executeAttempt(deps, execution(run));
    expect(outcome).toMatchObject({ ok: true, requestHeaders: { authorization: '***', 'x-team': 'ops' } });
    const [delivery] = sink.deliveries.filter((d) => d.headers['webhook-id'] === run.id);
    expect(delivery!.headers.authorization).toBe('Bearer sk_live_engine');
    expect(delivery!.headers['x-team']).toBe('ops');
  });

  it('does not call a target whose secrets no configured key opens', async () => {
    const secretJob = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
      url: sink.url,
      headers: { Authorization: 'Bearer sk_live_engine' },
      partitions: db.partitions,
    });
    const run = await claim(0, secretJob.id);
    const otherKeys = new SigningSecrets(db.pool, Keyring.from(Buffer.alloc(32, 9).toString('base64')));
    const outcome = await executeAttempt({ ...deps, secrets: otherKeys }, execution(run));
    expect(outcome).toMatchObject({
      ok: false,
      failure: 'invalid',
      error: expect.stringContaining('cannot be opened'),
    });
    expect(sink.deliveries.filter((d) => d.headers['webhook-id'] === run.id)).toEqual([]);
  });
});
