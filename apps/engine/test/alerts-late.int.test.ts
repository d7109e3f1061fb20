// Late detection with the whole engine fleet frozen: every engine node (real processes) is
// SIGSTOPped, and the watchdog and dispatcher that the web process runs — here, in the test
// process, over the same database — still open a `late` incident and send it; after SIGCONT
// the fleet catches up and the incident resolves with a recovery notice.
import { AlertDispatcher, ChannelSenders, dashboardLinks, LateWatchdog } from '@belfry/alerts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertChannel, setPolicy } from '../../../test/alerts';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import {
  insertJob,
  insertTenant,
  type Sink,
  startSink,
  TEST_ENCRYPTION_KEY_MATERIAL,
  TEST_KEYRING,
  waitForRows,
} from '../../../test/fixtures';

const LATE_AFTER_SECONDS = 5;
const silent = { info() {}, warn() {}, error() {} };

describe('alerts: a frozen engine fleet is reported as late', () => {
  let db: TestDatabase;
  let nodes: EngineNode[] = [];
  let target: Sink;
  let receiver: Sink;
  let senders: ChannelSenders;
  let dispatcher: AlertDispatcher;
  let watchdog: LateWatchdog;

  beforeAll(async () => {
    db = await createTestDatabase();
    [target, receiver] = await Promise.all([startSink(), startSink()]);
    nodes = await Promise.all(
      ['late-a', 'late-b'].map((nodeId) =>
        startEngineNode({
          databaseUrl: db.url,
          nodeId,
          env: { BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL, BELFRY_LEASE_SECONDS: '3' },
        }),
      ),
    );
    // What the web process runs (apps/web/src/server/alerts.ts), on its own connections.
    senders = new ChannelSenders({ links: dashboardLinks('http://belfry.test'), allowPrivateTargets: true });
    dispatcher = new AlertDispatcher({
      pool: db.pool,
      keyring: TEST_KEYRING,
      sender: senders,
      log: silent,
      config: {
        intervalMs: 250,
        claim: { quietSeconds: 0.5, maxWaitSeconds: 10, lockSeconds: 60, maxChannels: 10, maxNotifications: 100 },
      },
    });
    watchdog = new LateWatchdog(db.pool, { intervalMs: 500 }, silent);
  });
  afterAll(async () => {
    for (const n of nodes) n.signal('SIGCONT');
    await watchdog?.stop();
    await dispatcher?.stop();
    await senders?.close();
    await Promise.all(nodes.map((n) => n.stop()));
    await Promise.all([target?.close(), receiver?.close()]);
    await db?.destroy();
  });

  it(`opens a late incident within lateAfterSeconds + 15 s of SIGSTOP and resolves it after SIGCONT`, async () => {
    const tenant = await insertTenant(db.pool);
    await setPolicy(db.pool, tenant.id, { lateAfterSeconds: LATE_AFTER_SECONDS });
    const hookPath = `/webhook/${tenant.id}`;
    await insertChannel(db.pool, tenant.id, {
      type: 'webhook',
      url: `${receiver.url.replace(/\/hook$/, '')}${hookPath}`,
    });
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'interval', everySeconds: 1, anchor: new Date() },
      url: target.url,
      partitions: db.partitions,
    });
    // The fleet runs the job on time: no incident.
    await target.waitFor((all) => all.filter((d) => d.headers['belfry-job-id'] === job.id).length >= 3);
    watchdog.start();
    dispatcher.start();
    expect((await watchdog.checkOnce()).opened).toBe(0);

    for (const n of nodes) n.signal('SIGSTOP');
    const [incident] = await waitForRows<{ id: string; kind: string; scheduled_time: Date }>(
      db.pool,
      `SELECT * FROM incidents WHERE job_id = $1 AND kind = 'late' AND resolved_at IS NULL`,
      [job.id],
      (rows) => rows.length === 1,
      (LATE_AFTER_SECONDS + 15) * 1000,
    );
    const opened = await receiver.waitFor((all) => all.some((d) => d.url === hookPath), 15_000);
    const message = JSON.parse(opened.find((d) => d.url === hookPath)!.body);
    expect(message.notifications[0]).toMatchObject({
      event: 'opened',
      incident: { id: incident!.id, kind: 'late' },
      job: { id: job.id },
    });

    for (const n of nodes) n.signal('SIGCONT');
    await waitForRows(
      db.pool,
      `SELECT 1 FROM incidents WHERE id = $1 AND resolved_at IS NOT NULL`,
      [incident!.id],
      (rows) => rows.length === 1,
      60_000,
    );
    const all = await receiver.waitFor((d) => d.filter((x) => x.url === hookPath).length === 2, 15_000);
    const resolved = JSON.parse(all.filter((d) => d.url === hookPath)[1]!.body);
    expect(resolved.notifications[0]).toMatchObject({
      event: 'resolved',
      incident: { id: incident!.id, kind: 'late' },
    });
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM incidents WHERE job_id = $1`, [job.id]);
    expect(rows[0].n).toBe(1);
  });
});
