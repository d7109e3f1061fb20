// The alerts REST surface: channels (secrets write-only, "send test" over a real SMTP server and
// loopback receivers), the tenant policy, a job's `alerts` field and the incidents list.
import { ChannelSenders, dashboardLinks } from '@belfry/alerts';
import { newId } from '@belfry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtpSink } from '../../../test/alerts';
import { type Sink, startSink } from '../../../test/fixtures';
import { AlertChannel, AlertPolicy, IncidentPage, Job } from '../src/index';
import { call, client, createHarness, type Harness, jobBody, makeTenant, type TestTenant } from './support';

let h: Harness;
let t: TestTenant;
let other: TestTenant;
let api: ReturnType<typeof client>;
let smtp: SmtpSink;
let receiver: Sink;
let senders: ChannelSenders;

beforeAll(async () => {
  h = await createHarness();
  [t, other] = await Promise.all([makeTenant(h), makeTenant(h)]);
  api = client(h, t.key);
  [smtp, receiver] = await Promise.all([startSmtpSink(), startSink()]);
  senders = new ChannelSenders({
    links: dashboardLinks('http://belfry.test'),
    allowPrivateTargets: true,
    smtpUrl: smtp.url,
    smtpFrom: 'alerts@belfry.test',
  });
  h.deps.alertSender = senders;
});
afterAll(async () => {
  await senders?.close();
  await Promise.all([smtp?.close(), receiver?.close()]);
  await h?.close();
});

const base = () => receiver.url.replace(/\/hook$/, '');

describe('alert channels', () => {
  it('creates each type; secrets read back masked and a PATCH sending the mask keeps them', async () => {
    const email = await api.post('/api/v1/alert-channels', { type: 'email', to: ['ops@example.com'] });
    expect(email.status).toBe(201);
    expect(email.headers.get('location')).toBe(`/api/v1/alert-channels/${email.body.id}`);
    expect(AlertChannel.parse(email.body)).toMatchObject({ type: 'email', to: ['ops@example.com'] });

    const slack = await api.post('/api/v1/alert-channels', {
      type: 'slack',
      url: `${base()}/slack/T000/B000/XXXXSECRET`,
    });
    expect(slack.status).toBe(201);
    expect(slack.body.url).toBe(`${base()}/***`);
    expect(slack.text).not.toContain('XXXXSECRET');

    const pd = await api.post('/api/v1/alert-channels', { type: 'pagerduty', routingKey: 'secret-routing-key' });
    expect(pd.body).toMatchObject({ type: 'pagerduty', routingKey: '***', url: null });
    const hook = await api.post('/api/v1/alert-channels', { type: 'webhook', url: `${base()}/hook?token=abc` });
    expect(hook.body.url).toBe(`${base()}/hook?***`);

    // Sending back what was read keeps the secret: the test notification still reaches the real path.
    const patched = await api.patch(`/api/v1/alert-channels/${slack.body.id}`, { url: slack.body.url });
    expect(patched.status).toBe(200);
    const tested = await api.post(`/api/v1/alert-channels/${slack.body.id}/test`);
    expect(tested.body).toEqual({ delivered: true });
    const got = receiver.deliveries.find((d) => d.url === '/slack/T000/B000/XXXXSECRET');
    expect(JSON.parse(got!.body)).toMatchObject({ text: '[Belfry] Test notification', blocks: [{ type: 'section' }] });

    const list = await api.get('/api/v1/alert-channels');
    expect(list.body.data.map((c: { id: string }) => c.id).sort()).toEqual(
      [email.body.id, slack.body.id, pd.body.id, hook.body.id].sort(),
    );
    expect(list.text).not.toContain('secret-routing-key');
    expect(list.text).not.toContain('token=abc');
  });

  it('refuses bad input with problem+json naming the field, and hides other tenants’ channels', async () => {
    const bad = await api.post('/api/v1/alert-channels', { type: 'email', to: ['not-an-address'] });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    expect(bad.body.errors[0].path).toBe('to.0');
    expect((await api.post('/api/v1/alert-channels', { type: 'sms', to: '+1' })).status).toBe(400);
    expect((await api.post('/api/v1/alert-channels', { type: 'slack', url: 'ftp://x/y' })).status).toBe(400);
    expect(
      (await api.post('/api/v1/alert-channels', { type: 'webhook', url: 'https://u:p@example.com/' })).status,
    ).toBe(400);

    const mine = await api.post('/api/v1/alert-channels', { type: 'email', to: ['a@example.com'] });
    const theirs = client(h, other.key);
    expect((await theirs.get(`/api/v1/alert-channels/${mine.body.id}`)).status).toBe(404);
    expect((await theirs.post(`/api/v1/alert-channels/${mine.body.id}/test`)).status).toBe(404);
    expect((await theirs.del(`/api/v1/alert-channels/${mine.body.id}`)).status).toBe(404);
    const patched = await api.patch(`/api/v1/alert-channels/${mine.body.id}`, { to: [] });
    expect(patched.status).toBe(400);
    expect((await api.del(`/api/v1/alert-channels/${mine.body.id}`)).status).toBe(204);
    expect((await api.get(`/api/v1/alert-channels/${mine.body.id}`)).status).toBe(404);
  });

  it('"send test" delivers an e-mail over SMTP, and reports a channel that cannot be reached', async () => {
    const email = await api.post('/api/v1/alert-channels', { type: 'email', to: ['test-me@example.com'] });
    const res = await api.post(`/api/v1/alert-channels/${email.body.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ delivered: true });
    const mail = smtp.mails.find((m) => m.to.includes('test-me@example.com'));
    expect(mail?.subject).toBe('[Belfry] Test notification');

    const down = await api.post('/api/v1/alert-channels', {
      type: 'webhook',
      url: 'http://127.0.0.1:1/nothing-listens',
    });
    const failed = await api.post(`/api/v1/alert-channels/${down.body.id}/test`);
    expect(failed.status).toBe(200);
    expect(failed.body.delivered).toBe(false);
    expect(failed.body.error).toMatch(/refused|connect/i);
  });
});

describe('alert policy and a job’s alerts', () => {
  it('answers the defaults, replaces them with PUT, and refuses channels of another tenant', async () => {
    const fresh = await makeTenant(h);
    const c = client(h, fresh.key);
    expect(AlertPolicy.parse((await c.get('/api/v1/alert-policy')).body)).toEqual({
      channels: null,
      onDead: true,
      afterConsecutiveFailures: null,
      lateAfterSeconds: null,
      notifyRecovery: true,
    });
    const ch = await c.post('/api/v1/alert-channels', { type: 'email', to: ['x@example.com'] });
    const put = await call(h, 'PUT', '/api/v1/alert-policy', {
      key: fresh.key,
      body: { channels: [ch.body.id], afterConsecutiveFailures: 3, lateAfterSeconds: 60 },
    });
    expect(put.status).toBe(200);
    expect((await c.get('/api/v1/alert-policy')).body).toEqual({
      channels: [ch.body.id],
      onDead: true,
      afterConsecutiveFailures: 3,
      lateAfterSeconds: 60,
      notifyRecovery: true,
    });
    const tooLow = await call(h, 'PUT', '/api/v1/alert-policy', { key: fresh.key, body: { lateAfterSeconds: 4 } });
    expect(tooLow.status).toBe(400);
    expect(tooLow.body.errors[0].path).toBe('lateAfterSeconds');
    const foreign = await api.post('/api/v1/alert-channels', { type: 'email', to: ['y@example.com'] });
    const stolen = await call(h, 'PUT', '/api/v1/alert-policy', {
      key: fresh.key,
      body: { channels: [foreign.body.id] },
    });
    expect(stolen.status).toBe(422);
  });

  it('stores a job’s alerts, shows them on the job, and clears them with null', async () => {
    const ch = await api.post('/api/v1/alert-channels', { type: 'email', to: ['job@example.com'] });
    const alerts = { channels: [ch.body.id], afterConsecutiveFailures: 3, lateAfterSeconds: null };
    const created = await api.post('/api/v1/jobs', jobBody({ alerts }));
    expect(created.status).toBe(201);
    expect(Job.parse(created.body).alerts).toEqual(alerts);
    expect((await api.get(`/api/v1/jobs/${created.body.id}`)).body.alerts).toEqual(alerts);
    const bad = await api.patch(`/api/v1/jobs/${created.body.id}`, { alerts: { afterConsecutiveFailures: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('alerts.afterConsecutiveFailures');
    const unknown = await api.patch(`/api/v1/jobs/${created.body.id}`, { alerts: { channels: [newId('ach')] } });
    expect(unknown.status).toBe(422);
    const cleared = await api.patch(`/api/v1/jobs/${created.body.id}`, { alerts: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.alerts).toBeUndefined();
  });
});

describe('GET /api/v1/incidents', () => {
  it('lists incidents newest first with their notifications, filtered by status and job, page by page', async () => {
    const job = await api.post('/api/v1/jobs', jobBody({ name: 'nightly' }));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = newId('inc');
      ids.push(id);
      await h.db.pool.query(
        `INSERT INTO incidents (id, tenant_id, job_id, kind, run_id, opened_at, resolved_at)
         VALUES ($1, $2, $3, $4, NULL, now() - make_interval(mins => $5), $6)`,
        [id, t.tenantId, job.body.id, i === 0 ? 'late' : 'dead', 10 - i, i < 2 ? new Date() : null],
      );
    }
    await h.db.pool.query(
      `INSERT INTO alert_notifications (id, tenant_id, incident_id, channel_id, event, status, attempts, sent_at)
       VALUES ($1, $2, $3, 'ach_X', 'opened', 'sent', 1, now())`,
      [newId('ntf'), t.tenantId, ids[2]],
    );
    const open = await api.get('/api/v1/incidents?status=open');
    const page = IncidentPage.parse(open.body);
    expect(page.data.map((i) => i.id)).toEqual([ids[2]]);
    expect(page.data[0]).toMatchObject({ jobId: job.body.id, jobName: 'nightly', kind: 'dead', resolvedAt: null });
    expect(page.data[0]?.notifications).toMatchObject([
      { channelId: 'ach_X', event: 'opened', status: 'sent', attempts: 1 },
    ]);
    const resolved = await api.get('/api/v1/incidents?status=resolved&limit=1');
    expect(resolved.body.data.map((i: { id: string }) => i.id)).toEqual([ids[1]]);
    const next = await api.get(`/api/v1/incidents?status=resolved&limit=1&cursor=${resolved.body.nextCursor}`);
    expect(next.body.data.map((i: { id: string }) => i.id)).toEqual([ids[0]]);
    expect(next.body.nextCursor).toBeNull();
    expect((await api.get(`/api/v1/incidents?jobId=${job.body.id}`)).body.data).toHaveLength(3);
    expect((await client(h, other.key).get('/api/v1/incidents')).body.data).toEqual([]);
    expect((await api.get('/api/v1/incidents?status=closed')).status).toBe(400);
  });
});
