// The scheduler loop in-process, on a real database and pg-boss, with the lease keeper
// replaced by lease rows the test writes itself: exactly-once materialization under
// concurrent scans, fencing, misfire policies after an outage, one-off completion and the
// look-ahead window.
import { createQueueClient, jobStatusSql, type QueueClient, WAKE_CHANNEL, type WakeHint } from '@belfry/db';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertJob, insertTenant, setRunStatus } from '../../../test/fixtures';
import { createLogger } from '../src/logger';
import { DEFAULT_SCHEDULER_CONFIG, leaseHint, Scheduler, type SchedulerConfig } from '../src/scheduler/scheduler';
import { dbNow, type FakeLeases, holdPartitions, insertJobsBulk, queueMessages, range } from './support';

const NODE = 'sched-test';
const URL = 'http://127.0.0.1:9/never-called';
const log = createLogger('silent', {});

describe('scheduler (in-process)', () => {
  let db: TestDatabase;
  const queues: QueueClient[] = [];
  let all: number[];

  const config = (overrides: Partial<SchedulerConfig> = {}): SchedulerConfig => ({
    ...DEFAULT_SCHEDULER_CONFIG,
    nodeId: NODE,
    ...overrides,
  });
  const scheduler = async (leases: FakeLeases, overrides: Partial<SchedulerConfig> = {}) => {
    const queue = await createQueueClient(db.url, { max: 4 });
    queues.push(queue);
    return new Scheduler(db.pool, queue, leases, config(overrides), log);
  };
  const snapshot = async () => {
    const [entries, runs, messages] = await Promise.all([
      db.pool.query('SELECT id AS job_id, next_run_at FROM jobs WHERE next_run_at IS NOT NULL ORDER BY id'),
      db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM runs'),
      queueMessages(db.pool),
    ]);
    return { entries: entries.rows, runs: runs.rows[0]?.n, messages: messages.length };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query('SELECT 1');
    all = range(db.partitions);
  });
  beforeEach(async () => {
    // Each test starts with no schedule and no leases; history of earlier tests stays.
    await db.pool.query('UPDATE jobs SET next_run_at = NULL WHERE next_run_at IS NOT NULL');
    await db.pool.query('UPDATE partition_leases SET owner = NULL, expires_at = NULL');
  });
  afterAll(async () => {
    for (const q of queues) await q.stop({ graceful: false, close: true }).catch(() => {});
    await db?.destroy();
  });

  it('two schedulers scanning the same partitions materialize every occurrence exactly once', async () => {
    const tenant = await insertTenant(db.pool);
    const now = await dbNow(db.pool);
    const second = Math.floor(now.getTime() / 1000) * 1000;
    const first = range(300).map((i) => new Date(second - (i % 4) * 1000));
    const jobIds = await insertJobsBulk(db.pool, {
      tenantId: tenant.id,
      url: URL,
      partitions: db.partitions,
      nextRunAt: first,
      schedule: { type: 'interval', everySeconds: 1, anchor: new Date(second - 3_600_000) },
    });
    // Same node id and lease rows for both: as if one node's lease were briefly believed by two.
    const leases = await holdPartitions(db.pool, NODE, all);
    const a = await scheduler(leases, { batchSize: 40 });
    const b = await scheduler(leases, { batchSize: 40 });
    const target = 300 * 8;
    let total = 0;
    const loop = async (s: Scheduler) => {
      let mine = 0;
      while (total < target) {
        const r = await s.scanOnce();
        expect(r.fencedOut).toEqual([]);
        mine += r.materialized;
        total += r.materialized;
        if (!r.scanned) await new Promise((resolve) => setTimeout(resolve, 10)); // wait for time to pass
      }
      return mine;
    };
    const [byA, byB] = await Promise.all([loop(a), loop(b)]);
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);

    // Per job: one run per occurrence, no gaps, from its first due time up to where its entry now is.
    const { rows } = await db.pool.query<{ job_id: string; times: Date[]; next: Date }>(
      `SELECT r.job_id, array_agg(r.scheduled_time ORDER BY r.scheduled_time) AS times, se.next_run_at AS next
       FROM runs r JOIN jobs se ON se.id = r.job_id
       WHERE r.tenant_id = $1 GROUP BY r.job_id, se.next_run_at`,
      [tenant.id],
    );
    expect(rows).toHaveLength(300);
    const firstById = new Map(jobIds.map((id, i) => [id, first[i]!.getTime()]));
    let runs = 0;
    for (const r of rows) {
      const start = firstById.get(r.job_id)!;
      const expected = range((r.next.getTime() - start) / 1000).map((k) => start + k * 1000);
      expect(r.times.map((t) => t.getTime())).toEqual(expected);
      runs += r.times.length;
    }
    expect(runs).toBe(total);

    // One pg-boss message per run, none twice, each claimable `claimAheadMs` before its run's
    // scheduled time.
    const messages = await queueMessages(db.pool);
    const forTenant = messages.filter((m) => m.name === `t.${tenant.id}.normal`);
    expect(forTenant).toHaveLength(runs);
    expect(new Set(forTenant.map((m) => m.runId)).size).toBe(runs);
    const { rows: tenantRuns } = await db.pool.query<{ id: string; scheduled_time: Date }>(
      'SELECT id, scheduled_time FROM runs WHERE tenant_id = $1',
      [tenant.id],
    );
    const startAfter = new Map(messages.map((m) => [m.runId, m.startAfter.getTime()]));
    const mismatched = tenantRuns.filter(
      (r) => startAfter.get(r.id) !== r.scheduled_time.getTime() - DEFAULT_SCHEDULER_CONFIG.claimAheadMs,
    );
    expect(mismatched.length).toBe(0);
  });

  describe('fencing', () => {
    const dueJob = async () => {
      const tenant = await insertTenant(db.pool);
      const now = await dbNow(db.pool);
      return insertJob(db.pool, tenant.id, {
        schedule: {
          type: 'interval',
          everySeconds: 1,
          anchor: new Date(Math.floor(now.getTime() / 1000) * 1000 - 60_000),
        },
        nextRunAt: new Date(Math.floor(now.getTime() / 1000) * 1000),
        url: URL,
        partitions: db.partitions,
      });
    };

    // Fencing is checked for the partitions a batch would write for (idle scans lock nothing),
    // so the stale partition reported is the due job's.
    const partitionOfJob = async (id: string) =>
      (await db.pool.query<{ partition: number }>('SELECT partition FROM jobs WHERE id = $1', [id])).rows[0]?.partition;

    it('a scheduler whose epoch is stale writes nothing, reports the partitions and forgets them', async () => {
      const job = await dueJob();
      const leases = await holdPartitions(db.pool, NODE, all, 7);
      await db.pool.query('UPDATE partition_leases SET epoch = epoch + 1'); // taken over and back: new epoch
      const before = await snapshot();
      const result = await (await scheduler(leases)).scanOnce();
      expect(result).toMatchObject({ scanned: 1, materialized: 0, skipped: 0 });
      expect(result.fencedOut).toEqual([await partitionOfJob(job.id)]);
      expect(leases.forgotten).toEqual([await partitionOfJob(job.id)]);
      expect(await snapshot()).toEqual(before);
      const runs = await db.pool.query('SELECT 1 FROM runs WHERE job_id = $1', [job.id]);
      expect(runs.rowCount).toBe(0);
    });

    it('a scheduler whose lease expired writes nothing', async () => {
      const job = await dueJob();
      const leases = await holdPartitions(db.pool, NODE, all);
      await db.pool.query(`UPDATE partition_leases SET expires_at = now() - interval '1 second'`);
      const before = await snapshot();
      const result = await (await scheduler(leases)).scanOnce();
      expect(result.materialized).toBe(0);
      expect(result.fencedOut).toEqual([await partitionOfJob(job.id)]);
      expect(leases.forgotten).toEqual([await partitionOfJob(job.id)]);
      expect(await snapshot()).toEqual(before);
      expect((await db.pool.query('SELECT 1 FROM runs WHERE job_id = $1', [job.id])).rowCount).toBe(0);
    });

    it('fenced out of some partitions, it still schedules the ones it holds, and only those', async () => {
      const jobs = await Promise.all(range(12).map(() => dueJob()));
      const leases = await holdPartitions(db.pool, NODE, all);
      const { rows } = await db.pool.query<{ id: string; partition: number }>(
        'SELECT id, partition FROM jobs WHERE id = ANY($1)',
        [jobs.map((j) => j.id)],
      );
      const lost = [...new Set(rows.map((r) => r.partition))].slice(0, 2);
      await db.pool.query(
        `UPDATE partition_leases SET owner = 'someone-else', epoch = epoch + 1 WHERE partition = ANY($1)`,
        [lost],
      );
      const result = await (await scheduler(leases)).scanOnce();
      expect([...result.fencedOut].sort()).toEqual([...lost].sort());
      const withRuns = await db.pool.query<{ partition: number; runs: number }>(
        `SELECT j.partition, count(r.id)::int AS runs FROM jobs j LEFT JOIN runs r ON r.job_id = j.id
         WHERE j.id = ANY($1) GROUP BY j.id, j.partition`,
        [jobs.map((j) => j.id)],
      );
      for (const r of withRuns.rows) {
        if (lost.includes(r.partition)) expect(r.runs).toBe(0);
        else expect(r.runs).toBeGreaterThan(0);
      }
    });
  });

  it('misfire policies after an outage: run_once, skip, catch_up', async () => {
    const tenant = await insertTenant(db.pool);
    const now = await dbNow(db.pool);
    // Ten occurrences a minute apart were missed, the last 30 s ago; the next is 30 s ahead.
    const first = new Date(Math.floor(now.getTime() / 1000) * 1000 - 570_000);
    const times = range(10).map((k) => first.getTime() + k * 60_000);
    const job = (misfirePolicy: 'run_once' | 'skip' | 'catch_up') =>
      insertJob(db.pool, tenant.id, {
        schedule: { type: 'interval', everySeconds: 60, anchor: new Date(first.getTime() - 3_600_000) },
        nextRunAt: first,
        misfirePolicy,
        url: URL,
        partitions: db.partitions,
      });
    const runOnce = await job('run_once');
    const skip = await job('skip');
    const catchUp = await job('catch_up');
    const leases = await holdPartitions(db.pool, NODE, all);
    const s = await scheduler(leases, {
      plan: { ...DEFAULT_SCHEDULER_CONFIG.plan, misfireGraceMs: 10_000, catchUpPerScan: 3 },
    });
    let scans = 0;
    for (;;) {
      const r = await s.scanOnce();
      if (!r.scanned) break;
      if (++scans > 20) throw new Error('scheduler does not converge');
    }
    expect(scans).toBe(4); // catch_up: 3 + 3 + 3 + 1

    const runsOf = async (jobId: string) =>
      (
        await db.pool.query<{ t: number; status: string; skip_reason: string | null; trigger: string }>(
          `SELECT extract(epoch from scheduled_time) * 1000 AS t, status, skip_reason, trigger
           FROM runs WHERE job_id = $1 ORDER BY scheduled_time`,
          [jobId],
        )
      ).rows.map((r) => ({ ...r, t: Number(r.t) }));
    const entry = async (jobId: string) =>
      (
        await db.pool.query<{ next_run_at: Date }>(
          'SELECT next_run_at FROM jobs WHERE id = $1 AND next_run_at IS NOT NULL',
          [jobId],
        )
      ).rows[0]?.next_run_at.getTime();
    const next = first.getTime() + 600_000;

    const once = await runsOf(runOnce.id);
    expect(once.map((r) => r.t)).toEqual(times);
    expect(once.slice(0, 9).every((r) => r.status === 'skipped' && r.skip_reason === 'misfire')).toBe(true);
    expect(once[9]).toMatchObject({ status: 'pending', skip_reason: null, trigger: 'schedule' });
    expect(await entry(runOnce.id)).toBe(next);

    const skipped = await runsOf(skip.id);
    expect(skipped.map((r) => r.t)).toEqual(times);
    expect(skipped.every((r) => r.status === 'skipped' && r.skip_reason === 'misfire')).toBe(true);
    expect(await entry(skip.id)).toBe(next);
    expect(next).toBeGreaterThan(now.getTime());

    const caught = await runsOf(catchUp.id);
    expect(caught.map((r) => r.t)).toEqual(times);
    expect(caught.every((r) => r.status === 'pending')).toBe(true);
    expect(await entry(catchUp.id)).toBe(next);

    // Only pending runs are queued, one message each.
    expect((await queueMessages(db.pool, runOnce.id)).map((m) => new Date(m.scheduledTime).getTime())).toEqual([
      times[9],
    ]);
    expect(await queueMessages(db.pool, skip.id)).toEqual([]);
    expect((await queueMessages(db.pool, catchUp.id)).map((m) => new Date(m.scheduledTime).getTime())).toEqual(times);
  });

  it('an outage shorter than the misfire grace: a scan materializes up to 10 overdue occurrences of a job, each once', async () => {
    const tenant = await insertTenant(db.pool);
    const now = await dbNow(db.pool);
    // An interval-1 s job whose entry is 25 s behind (the database was away 25 s; grace 60 s).
    const first = new Date(Math.floor(now.getTime() / 1000) * 1000 - 25_000);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'interval', everySeconds: 1, anchor: new Date(first.getTime() - 3_600_000) },
      nextRunAt: first,
      misfirePolicy: 'run_once',
      url: URL,
      partitions: db.partitions,
    });
    const leases = await holdPartitions(db.pool, NODE, all);
    const s = await scheduler(leases);
    const runTimes = async () =>
      (
        await db.pool.query<{ t: number; status: string }>(
          `SELECT extract(epoch from scheduled_time) * 1000 AS t, status FROM runs WHERE job_id = $1 ORDER BY scheduled_time`,
          [job.id],
        )
      ).rows.map((r) => ({ t: Number(r.t), status: r.status }));
    const nextRunAt = async () =>
      (await db.pool.query<{ next_run_at: Date }>('SELECT next_run_at FROM jobs WHERE id = $1', [job.id])).rows[0]
        ?.next_run_at;

    await s.scanOnce();
    // the ten oldest in one scan (one a scan until b283348), none skipped, all queued
    expect(await runTimes()).toEqual(range(10).map((k) => ({ t: first.getTime() + k * 1000, status: 'pending' })));
    expect((await nextRunAt())?.getTime()).toBe(first.getTime() + 10_000);
    expect((await queueMessages(db.pool, job.id)).map((m) => new Date(m.scheduledTime).getTime())).toEqual(
      range(10).map((k) => first.getTime() + k * 1000),
    );

    // Scanning on catches up: every second from `first` on, exactly once, nothing skipped.
    for (let scans = 0; (await s.scanOnce()).scanned; )
      if (++scans > 50) throw new Error('scheduler does not converge');
    const made = await runTimes();
    const end = (await nextRunAt())?.getTime() as number;
    expect(made.map((r) => r.t)).toEqual(range((end - first.getTime()) / 1000).map((k) => first.getTime() + k * 1000));
    expect(made.every((r) => r.status === 'pending')).toBe(true);
    expect(end).toBeGreaterThan((await dbNow(db.pool)).getTime());
  });

  it("lease hints: an engine-claimed run is listed leased until its due time plus the hint, a pull queue's run is not", async () => {
    const tenant = await insertTenant(db.pool);
    const runAt = new Date((await dbNow(db.pool)).getTime() + 2_000);
    const pushed = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt },
      url: URL,
      partitions: db.partitions,
    });
    const pulled = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt },
      target: { type: 'pull', queue: 'reports' },
      partitions: db.partitions,
    });
    const hint = leaseHint(30_000, DEFAULT_SCHEDULER_CONFIG.claimAheadMs);
    expect(hint).toBe(28_500);
    const s = await scheduler(await holdPartitions(db.pool, NODE, all), { leaseHintMs: hint });
    expect(await s.scanOnce()).toMatchObject({ materialized: 2 });
    const listed = await db.pool.query<{ job_id: string; leased_until: Date | null; due_at: Date }>(
      `SELECT o.job_id, o.leased_until, r.due_at FROM open_runs o
         JOIN runs r ON r.id = o.run_id AND r.scheduled_time = o.scheduled_time
        WHERE o.job_id = ANY($1)`,
      [[pushed.id, pulled.id]],
    );
    const byJob = new Map(listed.rows.map((r) => [r.job_id, r]));
    expect(byJob.get(pushed.id)?.leased_until?.getTime()).toBe(runAt.getTime() + 28_500);
    expect(byJob.get(pulled.id)?.leased_until).toBeNull();
  });

  it('a one-off job loses its entry once its run is materialized, stored completed and shown active until that run has finished', async () => {
    const tenant = await insertTenant(db.pool);
    const runAt = new Date((await dbNow(db.pool)).getTime() + 500);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt },
      url: URL,
      partitions: db.partitions,
    });
    const s = await scheduler(await holdPartitions(db.pool, NODE, all));
    expect(await s.scanOnce()).toMatchObject({ scanned: 1, materialized: 1, skipped: 0 });
    // Stored completed in the materializing update (nothing to write when the run ends), shown
    // active while the run is open.
    const statuses = async () =>
      (
        await db.pool.query(`SELECT j.status AS stored, ${jobStatusSql('j')} AS shown FROM jobs j WHERE j.id = $1`, [
          job.id,
        ])
      ).rows[0];
    expect(await statuses()).toEqual({ stored: 'completed', shown: 'active' });
    expect(
      (await db.pool.query('SELECT 1 FROM jobs WHERE id = $1 AND next_run_at IS NOT NULL', [job.id])).rowCount,
    ).toBe(0);
    const runs = await db.pool.query('SELECT status, scheduled_time FROM runs WHERE job_id = $1', [job.id]);
    expect(runs.rows).toEqual([{ status: 'pending', scheduled_time: runAt }]);
    expect(await s.scanOnce()).toMatchObject({ scanned: 0, materialized: 0 });
    expect(await queueMessages(db.pool, job.id)).toHaveLength(1);
    // The run ended as a completion ends it (finished, unlisted from open_runs): shown completed
    // with nothing written to the job.
    const [run] = (await db.pool.query<{ id: string }>('SELECT id FROM runs WHERE job_id = $1', [job.id])).rows;
    expect(await setRunStatus(db.pool, run?.id as string, 'succeeded')).toBe(1);
    expect(await statuses()).toEqual({ stored: 'completed', shown: 'completed' });
  });

  it('a one-off whose only occurrence is skipped as a misfire is completed at once', async () => {
    const tenant = await insertTenant(db.pool);
    const runAt = new Date((await dbNow(db.pool)).getTime() - 3_600_000);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt },
      url: URL,
      misfirePolicy: 'skip',
      partitions: db.partitions,
    });
    const s = await scheduler(await holdPartitions(db.pool, NODE, all));
    expect(await s.scanOnce()).toMatchObject({ materialized: 0, skipped: 1 });
    const jobRow = await db.pool.query('SELECT status FROM jobs WHERE id = $1', [job.id]);
    expect(jobRow.rows[0].status).toBe('completed');
  });

  it('look-ahead: occurrences due within 2 s are queued now, claimable just before their time, and workers are told when', async () => {
    const tenant = await insertTenant(db.pool);
    const now = await dbNow(db.pool);
    const soon = new Date(now.getTime() + 1_500);
    const soonAfter = new Date(now.getTime() + 1_800);
    const later = new Date(now.getTime() + 30_000);
    const once = (runAt: Date) =>
      insertJob(db.pool, tenant.id, { schedule: { type: 'once', runAt }, url: URL, partitions: db.partitions });
    const near = await once(soon);
    const second = await once(soonAfter);
    const far = await once(later);
    const exclusive = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: soon },
      url: URL,
      partitions: db.partitions,
      overlapPolicy: 'skip',
    });
    const ahead = DEFAULT_SCHEDULER_CONFIG.claimAheadMs;
    const early = (t: Date) => new Date(t.getTime() - ahead);
    const listener = new pg.Client({ connectionString: db.url });
    const hints: WakeHint[] = [];
    listener.on('notification', (n) => hints.push(...(JSON.parse(n.payload ?? '[]') as WakeHint[])));
    await listener.connect();
    await listener.query(`LISTEN ${WAKE_CHANNEL}`);
    try {
      const s = await scheduler(await holdPartitions(db.pool, NODE, all), { lookaheadMs: 2_000 });
      expect(await s.scanOnce()).toMatchObject({ scanned: 3, materialized: 3 });
      const [message] = await queueMessages(db.pool, near.id);
      expect(message?.startAfter).toEqual(early(soon));
      expect(message?.scheduledTime).toBe(soon.toISOString());
      expect((await queueMessages(db.pool, second.id))[0]?.startAfter).toEqual(early(soonAfter));
      // An overlap-skip job's run is judged when claimed, so it is not claimable early.
      expect((await queueMessages(db.pool, exclusive.id))[0]?.startAfter).toEqual(soon);
      const run = await db.pool.query('SELECT id, status FROM runs WHERE job_id = $1', [near.id]);
      expect(run.rows).toEqual([{ id: message?.runId, status: 'pending' }]);
      expect((await db.pool.query('SELECT 1 FROM runs WHERE job_id = $1', [far.id])).rowCount).toBe(0);
      expect(
        (await db.pool.query('SELECT 1 FROM jobs WHERE id = $1 AND next_run_at IS NOT NULL', [far.id])).rowCount,
      ).toBe(1);
      // One wake-up hint per start time: a worker told only of the first would start the second late.
      await listener.query('SELECT 1'); // notifications sent before this round trip have arrived
      const queue = `t.${tenant.id}.normal`;
      expect(
        hints
          .filter((h) => h.q === queue)
          .map((h) => h.at)
          .sort(),
      ).toEqual([early(soon).getTime(), soon.getTime(), early(soonAfter).getTime()].sort());
    } finally {
      await listener.end();
    }
  });
});
