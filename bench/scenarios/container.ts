// Container: N occurrences of a container that exits at once, run by one Belfry engine node
// (BELFRY_CONTAINER_SLOTS at a time), beside N bare `docker run --rm` calls with the same image,
// network and concurrency, in the same run. Belfry's start-to-exit is the attempt's duration
// (create, start, wait, collect the output, remove); the bare figure is `docker run --rm`'s wall
// time. Reports both distributions, Belfry's added overhead per run (p50/p99) and runs/s.
// The image is built locally (FROM scratch + Debian's static busybox); nothing is pulled.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { newId } from '@belfry/core';
import { ensureTestImage, TEST_IMAGE } from '../../test/docker';
import { benchDatabase, insertOneOffJobs, insertTenants, startEngines } from '../lib/harness';
import { summarize, type Summary } from '../lib/stats';

const run = promisify(execFile);

export interface ContainerResult {
  parameters: Record<string, unknown>;
  bare: { startToExit: Summary; perSecond: number };
  belfry: { startToExit: Summary; endToEnd: Summary; perSecond: number; succeeded: number };
  /** Belfry's start-to-exit minus bare docker run's, at the same percentile */
  overheadMs: { p50: number | null; p99: number | null };
  /** Belfry's start-to-exit p50 ÷ bare docker run's */
  ratioP50: number | null;
}

async function bareDockerRuns(count: number, concurrency: number): Promise<{ times: number[]; totalMs: number }> {
  const times: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next < count) {
      next++;
      const start = performance.now();
      await run('docker', ['run', '--rm', '--network', 'none', '--init', TEST_IMAGE, 'true']);
      times.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { times, totalMs: performance.now() - t0 };
}

export async function runContainer(o: { count: number; slots: number }): Promise<ContainerResult> {
  await ensureTestImage();
  const bare = await bareDockerRuns(o.count, o.slots);

  const db = await benchDatabase();
  const engines = await startEngines(db.url, 1, {
    BELFRY_CONTAINER_IMAGES: 'belfry-test/*',
    BELFRY_CONTAINER_SLOTS: String(o.slots),
    BELFRY_TENANT_CONCURRENCY: String(o.slots),
  });
  try {
    const tenant = newId('ten');
    await insertTenants(db.pool, [tenant], o.slots);
    const due = new Date(Date.now() + 3_000);
    await insertOneOffJobs(db.pool, {
      count: o.count,
      tenants: [tenant],
      runAt: due,
      url: '',
      prefix: 'container-',
      partitions: 1024,
      target: {
        type: 'container',
        image: TEST_IMAGE,
        command: ['true'],
        env: {},
        memoryMb: 64,
        cpus: 1,
        network: 'none',
        pullPolicy: 'never',
      },
    });
    const deadline = Date.now() + 60_000 + o.count * 2_000;
    for (;;) {
      const { rows } = await db.pool.query<{ open: number }>(
        `SELECT count(*)::int AS open FROM runs WHERE status NOT IN ('succeeded', 'dead')`,
      );
      const { rows: made } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM runs');
      if ((made[0]?.n ?? 0) >= o.count && rows[0]?.open === 0) break;
      if (Date.now() > deadline) throw new Error('container runs did not finish in time');
      await new Promise((r) => setTimeout(r, 250));
    }
    const { rows } = await db.pool.query<{ duration_ms: number; end_ms: number; status: string; finished: Date }>(
      `SELECT a.duration_ms, (EXTRACT(EPOCH FROM (r.finished_at - r.scheduled_time)) * 1000)::float8 AS end_ms,
              r.status, r.finished_at AS finished
         FROM runs r JOIN run_attempt_history a ON a.run_id = r.id AND a.scheduled_time = r.scheduled_time`,
    );
    const last = Math.max(...rows.map((r) => r.finished.getTime()));
    const belfryTimes = rows.map((r) => r.duration_ms);
    const bareSummary = summarize(bare.times.map((t) => Math.round(t)));
    const belfrySummary = summarize(belfryTimes);
    const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.round(a - b));
    return {
      parameters: { occurrences: o.count, slots: o.slots, image: TEST_IMAGE, network: 'none' },
      bare: { startToExit: bareSummary, perSecond: Math.round((o.count / bare.totalMs) * 100_000) / 100 },
      belfry: {
        startToExit: belfrySummary,
        endToEnd: summarize(rows.map((r) => Math.round(r.end_ms))),
        perSecond: Math.round((o.count / Math.max(1, last - due.getTime())) * 100_000) / 100,
        succeeded: rows.filter((r) => r.status === 'succeeded').length,
      },
      overheadMs: {
        p50: minus(belfrySummary.p50, bareSummary.p50),
        p99: minus(belfrySummary.p99, bareSummary.p99),
      },
      ratioP50:
        belfrySummary.p50 && bareSummary.p50 ? Math.round((belfrySummary.p50 / bareSummary.p50) * 100) / 100 : null,
    };
  } finally {
    await engines.stop();
    await db.drop();
  }
}
