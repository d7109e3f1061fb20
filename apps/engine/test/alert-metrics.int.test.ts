// belfry_alert_notifications_total is cluster-wide: notifications sent by a dispatcher running
// elsewhere (here in the test process, as the web process runs one) show up in an engine node's
// /metrics, read from the outbox rows' recorded outcomes.
import { AlertDispatcher, ChannelSenders, dashboardLinks } from '@belfry/alerts';
import { openIncidents, withTransaction } from '@belfry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertChannel } from '../../../test/alerts';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import {
  insertJob,
  insertTenant,
  type Sink,
  startSink,
  TEST_ENCRYPTION_KEY_MATERIAL,
  TEST_KEYRING,
} from '../../../test/fixtures';

const quiet = { info() {}, warn() {}, error() {} };

describe('engine metrics: alert notifications', () => {
  let db: TestDatabase;
  let receiver: Sink;
  let node: EngineNode | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await startSink();
  });
  afterAll(async () => {
    await node?.stop();
    await receiver?.close();
    await db?.destroy();
  });

  it('counts notifications another process sent, retried and gave up on, per channel type', async () => {
    const tenant = await insertTenant(db.pool);
    const webhook = await insertChannel(db.pool, tenant.id, { type: 'webhook', url: receiver.url });
    // Nothing listens on the slack channel's port: its notification fails, is retried once, then fails for good.
    const deadPort = await startSink();
    const deadUrl = deadPort.url;
    await deadPort.close();
    await insertChannel(db.pool, tenant.id, { type: 'slack', url: deadUrl });
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 86_400_000) },
      url: receiver.url,
      partitions: db.partitions,
    });
    await withTransaction(db.pool, (tx) =>
      openIncidents(tx, [{ tenantId: tenant.id, jobId: job.id, kind: 'dead', runId: null, scheduledTime: null }]),
    );

    // The "web process": its own dispatcher, no metrics of its own.
    const dispatcher = new AlertDispatcher({
      pool: db.pool,
      keyring: TEST_KEYRING,
      sender: new ChannelSenders({ links: dashboardLinks('http://belfry.test'), allowPrivateTargets: true }),
      log: quiet,
      config: {
        claim: { quietSeconds: 0, maxWaitSeconds: 0, lockSeconds: 60, maxChannels: 50, maxNotifications: 100 },
        retry: { maxAttempts: 2, initialDelaySeconds: 0, maxDelaySeconds: 0 },
      },
    });
    expect(await dispatcher.dispatchOnce()).toBe(2); // webhook sent, slack retried
    await receiver.waitFor((all) => all.length === 1);
    expect(await dispatcher.dispatchOnce()).toBe(1); // slack failed for good
    const { rows } = await db.pool.query<{ channel_id: string; status: string }>(
      'SELECT channel_id, status FROM alert_notifications WHERE tenant_id = $1 ORDER BY channel_id',
      [tenant.id],
    );
    expect(rows.map((r) => [r.channel_id === webhook ? 'webhook' : 'slack', r.status]).sort()).toEqual([
      ['slack', 'failed'],
      ['webhook', 'sent'],
    ]);

    // An engine node that sent none of them reports all of them.
    node = await startEngineNode({
      databaseUrl: db.url,
      nodeId: 'metrics-1',
      env: { BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL },
    });
    const started = await node.waitForLog((l) => l.msg === 'engine node started');
    const res = await fetch(`http://127.0.0.1:${Number(started.metricsPort)}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const value = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(text).toContain('# TYPE belfry_alert_notifications_total counter');
    expect(value('belfry_alert_notifications_total{channel_type="webhook",status="sent"}')).toBe(1);
    expect(value('belfry_alert_notifications_total{channel_type="webhook",status="failed"}')).toBe(0);
    expect(value('belfry_alert_notifications_total{channel_type="slack",status="retry"}')).toBe(1);
    expect(value('belfry_alert_notifications_total{channel_type="slack",status="failed"}')).toBe(1);
    expect(value('belfry_alert_notifications_total{channel_type="slack",status="sent"}')).toBe(0);
  });
});
