// Alerts with a real engine node: incidents open where runs finish, the node's dispatcher sends
// them over a real SMTP server and loopback HTTP receivers (Slack, signed webhook, PagerDuty),
// once per incident, as one digest per channel when many open together, with retries when a
// channel is down — and recovery notices when the job succeeds again.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertChannel, type SmtpSink, setJobAlerts, setPolicy, startSmtpSink } from '../../../test/alerts';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import {
  type Delivery,
  insertJob,
  insertTenant,
  type Sink,
  startSink,
  TEST_ENCRYPTION_KEY_MATERIAL,
  waitForRows,
} from '../../../test/fixtures';
import { insertJobsBulk } from './support';

const DASHBOARD = 'http://belfry.test:3000';

describe('engine: alerts and incidents', () => {
  let db: TestDatabase;
  let node: EngineNode;
  let target: Sink; // the jobs' own webhook target
  let receiver: Sink; // the alert channels' Slack/webhook/PagerDuty endpoints
  let smtp: SmtpSink;

  beforeAll(async () => {
    db = await createTestDatabase();
    [target, receiver, smtp] = await Promise.all([startSink(), startSink(), startSmtpSink()]);
    // The target answers what the job's path asks for: /ok, /fail (retryable), /bad (dead at once).
    target.respond = (d) => ({ status: d.url.includes('/bad') ? 400 : d.url.includes('/fail') ? 503 : 200 });
    node = await startEngineNode({
      databaseUrl: db.url,
      nodeId: 'alerts-1',
      env: {
        BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL,
        BELFRY_SMTP_URL: smtp.url,
        BELFRY_SMTP_FROM: 'Belfry Alerts <alerts@belfry.test>',
        BELFRY_DASHBOARD_URL: DASHBOARD,
        BELFRY_ALERT_DIGEST_SECONDS: '2',
        BELFRY_ALERT_RETRY_SECONDS: '0.2',
        BELFRY_LATE_CHECK_SECONDS: '1',
      },
    });
  });
  afterAll(async () => {
    await node?.stop();
    await Promise.all([target?.close(), receiver?.close(), smtp?.close()]);
    await db?.destroy();
  });

  const base = (url: string) => url.replace(/\/hook$/, '');
  const at = (path: string) => (d: Delivery) => d.url === path;
  const notificationsOf = (tenantId: string) =>
    db.pool.query<{
      id: string;
      incident_id: string;
      channel_id: string;
      event: string;
      status: string;
      attempts: number;
      last_error: string | null;
      message_id: string | null;
    }>('SELECT * FROM alert_notifications WHERE tenant_id = $1 ORDER BY created_at, id', [tenantId]);
  const allSettled = (tenantId: string, expected: number) =>
    waitForRows<{ status: string }>(
      db.pool,
      'SELECT status FROM alert_notifications WHERE tenant_id = $1',
      [tenantId],
      (rows) => rows.length >= expected && rows.every((r) => r.status !== 'pending'),
      60_000,
    );

  it('a dead run opens one incident and sends one e-mail and one signed webhook naming the job, incident and run', async () => {
    const tenant = await insertTenant(db.pool);
    const email = await insertChannel(db.pool, tenant.id, { type: 'email', to: ['ops@example.com'] });
    const hookPath = `/webhook/${tenant.id}`;
    const hook = await insertChannel(db.pool, tenant.id, { type: 'webhook', url: `${base(receiver.url)}${hookPath}` });
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 200) },
      url: `${base(target.url)}/bad`,
      partitions: db.partitions,
    });

    const [incident] = await waitForRows<{ id: string; kind: string; run_id: string }>(
      db.pool,
      'SELECT * FROM incidents WHERE job_id = $1',
      [job.id],
      (rows) => rows.length === 1,
    );
    expect(incident?.kind).toBe('dead');
    await allSettled(tenant.id, 2);
    const { rows: notes } = await notificationsOf(tenant.id);
    expect(notes.map((n) => [n.channel_id, n.event, n.status]).sort()).toEqual(
      [
        [email, 'opened', 'sent'],
        [hook, 'opened', 'sent'],
      ].sort(),
    );

    const mails = smtp.mails.filter((m) => m.text.includes(job.id));
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.to).toEqual(['ops@example.com']);
    expect(mail.from).toBe('alerts@belfry.test');
    expect(mail.subject).toContain(`Job "${job.id}"`);
    expect(mail.subject).toContain('dead');
    expect(mail.text).toContain(incident!.id);
    expect(mail.text).toContain(`${DASHBOARD}/runs/${incident!.run_id}`);

    const hooks = receiver.deliveries.filter(at(hookPath));
    expect(hooks).toHaveLength(1);
    const d = hooks[0]!;
    const webhookNote = notes.find((n) => n.channel_id === hook)!;
    expect(d.headers['webhook-id']).toBe(webhookNote.id);
    expect(d.headers['idempotency-key']).toBe(webhookNote.id);
    // Signed exactly like run deliveries: standardwebhooks verifies it with the tenant's secret.
    const verified = new Webhook(tenant.secret.slice('whsec_'.length)).verify(d.body, {
      'webhook-id': String(d.headers['webhook-id']),
      'webhook-timestamp': String(d.headers['webhook-timestamp']),
      'webhook-signature': String(d.headers['webhook-signature']),
    }) as {
      type: string;
      notifications: {
        event: string;
        incident: { id: string; kind: string };
        job: { id: string };
        run: { id: string; url: string };
      }[];
    };
    expect(verified.type).toBe('belfry.alert');
    expect(verified.notifications).toHaveLength(1);
    expect(verified.notifications[0]).toMatchObject({
      event: 'opened',
      incident: { id: incident!.id, kind: 'dead' },
      job: { id: job.id },
      run: { id: incident!.run_id, url: `${DASHBOARD}/runs/${incident!.run_id}` },
    });
  });

  it('five failures in a row with threshold 3 send one message; the next success resolves it with a recovery notice (Slack and PagerDuty)', async () => {
    const tenant = await insertTenant(db.pool);
    await setPolicy(db.pool, tenant.id, { onDead: false, afterConsecutiveFailures: 3 });
    const slackPath = `/slack/${tenant.id}`;
    const pdPath = `/pagerduty/${tenant.id}`;
    await insertChannel(db.pool, tenant.id, { type: 'slack', url: `${base(receiver.url)}${slackPath}` });
    await insertChannel(db.pool, tenant.id, {
      type: 'pagerduty',
      routingKey: 'R0UTINGKEY0000000000000000000000',
      url: `${base(receiver.url)}${pdPath}`,
    });
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'interval', everySeconds: 1, anchor: new Date() },
      url: `${base(target.url)}/bad`,
      retry: { maxAttempts: 1, initialDelaySeconds: 0, maxDelaySeconds: 0 },
      partitions: db.partitions,
    });
    await waitForRows(
      db.pool,
      `SELECT id FROM runs WHERE job_id = $1 AND status = 'dead'`,
      [job.id],
      (rows) => rows.length >= 5,
    );
    await allSettled(tenant.id, 2);
    const { rows: incidents } = await db.pool.query('SELECT * FROM incidents WHERE job_id = $1', [job.id]);
    expect(incidents.map((i) => i.kind)).toEqual(['failing']);
    expect(receiver.deliveries.filter(at(slackPath))).toHaveLength(1);
    expect(receiver.deliveries.filter(at(pdPath))).toHaveLength(1);

    // The target recovers: the next run succeeds, the incident resolves, each channel hears once more.
    await db.pool.query(`UPDATE jobs SET target = jsonb_set(target, '{url}', to_jsonb($2::text)) WHERE id = $1`, [
      job.id,
      `${base(target.url)}/ok`,
    ]);
    await waitForRows(
      db.pool,
      'SELECT 1 FROM incidents WHERE job_id = $1 AND resolved_at IS NOT NULL',
      [job.id],
      (r) => r.length === 1,
    );
    await db.pool.query(`UPDATE jobs SET status = 'paused' WHERE id = $1`, [job.id]);
    await allSettled(tenant.id, 4);
    const slack = receiver.deliveries.filter(at(slackPath)).map((d) => JSON.parse(d.body));
    expect(slack).toHaveLength(2);
    for (const m of slack) {
      expect(typeof m.text).toBe('string');
      expect(m.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
      expect(JSON.stringify(m.blocks)).toContain(job.id);
    }
    expect(slack[0].text).toContain('keep failing');
    expect(slack[1].text).toContain('Resolved');
    const pd = receiver.deliveries.filter(at(pdPath)).map((d) => JSON.parse(d.body));
    const dedup = `belfry-${incidents[0].id}`;
    expect(pd[0]).toMatchObject({
      routing_key: 'R0UTINGKEY0000000000000000000000',
      event_action: 'trigger',
      dedup_key: dedup,
      payload: {
        source: 'belfry',
        severity: 'warning',
        custom_details: { job_id: job.id, incident_id: incidents[0].id },
      },
    });
    expect(typeof pd[0].payload.summary).toBe('string');
    expect(pd[1]).toEqual({
      routing_key: 'R0UTINGKEY0000000000000000000000',
      event_action: 'resolve',
      dedup_key: dedup,
    });
  });

  it('200 jobs failing at once go out as one digest per channel', async () => {
    const tenant = await insertTenant(db.pool);
    const slackPath = `/slack/${tenant.id}`;
    const hookPath = `/webhook/${tenant.id}`;
    await insertChannel(db.pool, tenant.id, { type: 'email', to: ['digest@example.com'] });
    await insertChannel(db.pool, tenant.id, { type: 'slack', url: `${base(receiver.url)}${slackPath}` });
    await insertChannel(db.pool, tenant.id, { type: 'webhook', url: `${base(receiver.url)}${hookPath}` });
    const when = new Date(Date.now() + 500);
    await insertJobsBulk(db.pool, {
      tenantId: tenant.id,
      url: `${base(target.url)}/bad`,
      partitions: db.partitions,
      nextRunAt: Array.from({ length: 200 }, () => when),
      schedule: { type: 'once' },
    });
    await waitForRows(
      db.pool,
      'SELECT 1 FROM incidents WHERE tenant_id = $1',
      [tenant.id],
      (r) => r.length === 200,
      60_000,
    );
    await allSettled(tenant.id, 600);
    expect(smtp.mails.filter((m) => m.to.includes('digest@example.com'))).toHaveLength(1);
    const mail = smtp.mails.find((m) => m.to.includes('digest@example.com'))!;
    expect(mail.subject).toContain('200 incidents');
    expect(receiver.deliveries.filter(at(slackPath))).toHaveLength(1);
    const hooks = receiver.deliveries.filter(at(hookPath));
    expect(hooks).toHaveLength(1);
    expect(JSON.parse(hooks[0]!.body).notifications).toHaveLength(200);
    const { rows } = await db.pool.query<{ messages: number }>(
      `SELECT count(DISTINCT message_id)::int AS messages FROM alert_notifications WHERE tenant_id = $1`,
      [tenant.id],
    );
    expect(rows[0]?.messages).toBe(3);
  });

  it('a channel that is down is retried with backoff until it answers; the outcome is recorded on the notification', async () => {
    const tenant = await insertTenant(db.pool);
    const downPath = `/down/${tenant.id}`;
    const gonePath = `/gone/${tenant.id}`;
    const down = await insertChannel(db.pool, tenant.id, { type: 'webhook', url: `${base(receiver.url)}${downPath}` });
    const gone = await insertChannel(db.pool, tenant.id, { type: 'webhook', url: `${base(receiver.url)}${gonePath}` });
    const previous = receiver.respond;
    receiver.respond = (d) => {
      if (d.url === gonePath) return { status: 410 };
      if (d.url === downPath) return { status: receiver.deliveries.filter(at(downPath)).length <= 2 ? 503 : 200 };
      return previous(d);
    };
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 200) },
      url: `${base(target.url)}/bad`,
      partitions: db.partitions,
    });
    await setJobAlerts(db.pool, job.id, { channels: [down, gone] });
    await allSettled(tenant.id, 2);
    const { rows } = await notificationsOf(tenant.id);
    const byChannel = new Map(rows.map((n) => [n.channel_id, n]));
    expect(byChannel.get(down)).toMatchObject({ status: 'sent', attempts: 3 });
    expect(byChannel.get(gone)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'HTTP 410 Gone' });
    const attempts = receiver.deliveries.filter(at(downPath));
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((d) => d.headers['webhook-id']))).toEqual(new Set([byChannel.get(down)!.id]));
  });

  it('a job whose alerts name no channel opens its incident but sends nothing', async () => {
    const tenant = await insertTenant(db.pool);
    await insertChannel(db.pool, tenant.id, { type: 'email', to: ['nobody@example.com'] });
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 200) },
      url: `${base(target.url)}/bad`,
      partitions: db.partitions,
    });
    await setJobAlerts(db.pool, job.id, { channels: [] });
    await waitForRows(db.pool, 'SELECT 1 FROM incidents WHERE job_id = $1', [job.id], (r) => r.length === 1);
    const { rows } = await notificationsOf(tenant.id);
    expect(rows).toEqual([]);
  });
});
