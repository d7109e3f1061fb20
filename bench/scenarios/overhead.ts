// Belfry's building blocks on their own, in the same run: raw pg-boss (insert, then fetch and
// complete with the batch size and per-tenant queue layout the workers use, two consumers) and
// a raw PostgreSQL ceiling (multi-row INSERT of the same run rows).
import { newId } from '@belfry/core';
import { PgBoss } from 'pg-boss';
import { benchDatabase } from '../lib/harness';

export interface OverheadResult {
  parameters: Record<string, unknown>;
  pgBossPerSecond: number;
  pgBossSendMs: number;
  pgBossWorkMs: number;
  postgresInsertPerSecond: number;
}

export async function runOverhead(o: {
  count: number;
  queues: number;
  batch: number;
  consumers: number;
}): Promise<OverheadResult> {
  const db = await benchDatabase();
  try {
    const boss = new PgBoss({
      connectionString: db.url,
      supervise: false,
      schedule: false,
      registerInstance: false,
      max: 10,
    });
    boss.on('error', () => {});
    await boss.start();
    const queues = Array.from({ length: o.queues }, (_, i) => `t.ten_bench${i}.normal`);
    for (const q of queues) await boss.createQueue(q, { expireInSeconds: 60, retryLimit: 20, deleteAfterSeconds: 300 });

    const t0 = Date.now();
    const perQueue = Math.ceil(o.count / o.queues);
    for (const q of queues) {
      for (let i = 0; i < perQueue; i += 1000) {
        const n = Math.min(1000, perQueue - i);
        await boss.insert(
          q,
          Array.from({ length: n }, () => ({ data: { runId: newId('run'), scheduledTime: new Date().toISOString() } })),
        );
      }
    }
    const t1 = Date.now();
    let done = 0;
    const total = perQueue * o.queues;
    const consumer = async (offset: number) => {
      let i = offset;
      let idle = 0;
      while (done < total && idle < o.queues * 2) {
        const q = queues[i++ % queues.length] as string;
        const jobs = await boss.fetch(q, { batchSize: o.batch });
        if (!jobs.length) {
          idle++;
          continue;
        }
        idle = 0;
        await boss.complete(
          q,
          jobs.map((j) => ({ id: j.id, retryCount: j.retryCount })),
        );
        done += jobs.length;
      }
    };
    await Promise.all(Array.from({ length: o.consumers }, (_, k) => consumer(k)));
    const t2 = Date.now();
    await boss.stop({ graceful: false });

    // Raw PostgreSQL: the same run rows, multi-row INSERT in batches of 1000.
    const t3 = Date.now();
    for (let i = 0; i < total; i += 1000) {
      const n = Math.min(1000, total - i);
      const now = new Date();
      const ids = Array.from({ length: n }, () => newId('run', now));
      await db.pool.query(
        `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, trigger, priority)
         SELECT id, 'ten_bench', 'job_' || id, $2, 'pending', 'schedule', 'normal' FROM unnest($1::text[]) AS t(id)`,
        [ids, now],
      );
    }
    const t4 = Date.now();
    return {
      parameters: { messages: total, queues: o.queues, batch: o.batch, consumers: o.consumers },
      pgBossPerSecond: Math.round((total / (t2 - t0)) * 1000),
      pgBossSendMs: t1 - t0,
      pgBossWorkMs: t2 - t1,
      postgresInsertPerSecond: Math.round((total / (t4 - t3)) * 1000),
    };
  } finally {
    await db.drop();
  }
}
