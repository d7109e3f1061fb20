// One job's alerting for its dashboard page (tRPC alerts.forJob): the job's own settings, the
// settings in effect key by key (job over tenant policy over defaults, the engine's own SQL),
// and only that job's open incidents.
import { newId } from '@belfry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobAlerts } from '../src/dashboard/job-alerts';
import type { Actor } from '../src/index';
import { call, client, createHarness, type Harness, jobBody, makeTenant, type TestTenant } from './support';

let h: Harness;
let t: TestTenant;
let api: ReturnType<typeof client>;
let viewer: Actor;

beforeAll(async () => {
  h = await createHarness();
  t = await makeTenant(h);
  api = client(h, t.key);
  viewer = { type: 'api_key', id: 'key_viewer', tenantId: t.tenantId, scopes: ['jobs:read', 'runs:read'] };
});
afterAll(() => h?.close());

async function insertIncident(jobId: string, kind: string, resolved: boolean): Promise<string> {
  const id = newId('inc');
  await h.db.pool.query(
    `INSERT INTO incidents (id, tenant_id, job_id, kind, opened_at, resolved_at) VALUES ($1, $2, $3, $4, now(), $5)`,
    [id, t.tenantId, jobId, kind, resolved ? new Date() : null],
  );
  return id;
}

describe('jobAlerts', () => {
  it('without settings anywhere: the defaults, all from the policy, no incidents', async () => {
    const job = await api.post('/api/v1/jobs', jobBody());
    expect(await jobAlerts(h.deps, viewer, job.body.id)).toEqual({
      jobId: job.body.id,
      own: null,
      effective: {
        channels: null,
        onDead: true,
        afterConsecutiveFailures: null,
        lateAfterSeconds: null,
        notifyRecovery: true,
      },
      source: {
        channels: 'policy',
        onDead: 'policy',
        afterConsecutiveFailures: 'policy',
        lateAfterSeconds: 'policy',
        notifyRecovery: 'policy',
      },
      openIncidents: [],
    });
  });

  it('takes each key from the job when it has one (null too), else from the tenant policy', async () => {
    const ch = await api.post('/api/v1/alert-channels', { type: 'email', to: ['ops@example.com'] });
    const put = await call(h, 'PUT', '/api/v1/alert-policy', {
      key: t.key,
      body: { channels: [ch.body.id], afterConsecutiveFailures: 3, lateAfterSeconds: 60, notifyRecovery: false },
    });
    expect(put.status).toBe(200);
    const own = { onDead: false, lateAfterSeconds: null };
    const job = await api.post('/api/v1/jobs', jobBody({ alerts: own }));
    const view = await jobAlerts(h.deps, viewer, job.body.id);
    expect(view.own).toEqual(own);
    expect(view.effective).toEqual({
      channels: [ch.body.id],
      onDead: false,
      afterConsecutiveFailures: 3,
      lateAfterSeconds: null,
      notifyRecovery: false,
    });
    expect(view.source).toEqual({
      channels: 'policy',
      onDead: 'job',
      afterConsecutiveFailures: 'policy',
      lateAfterSeconds: 'job',
      notifyRecovery: 'policy',
    });

    // an explicit empty channel list is the job's own: it sends nothing
    await api.patch(`/api/v1/jobs/${job.body.id}`, { alerts: { channels: [] } });
    const quiet = await jobAlerts(h.deps, viewer, job.body.id);
    expect(quiet.effective.channels).toEqual([]);
    expect(quiet.source.channels).toBe('job');
    expect(quiet.effective.onDead).toBe(true); // the policy's again: the PATCH replaced the job's alerts
  });

  it('lists only this job’s open incidents, with their notifications', async () => {
    const job = await api.post('/api/v1/jobs', jobBody());
    const other = await api.post('/api/v1/jobs', jobBody());
    const open = await insertIncident(job.body.id, 'dead', false);
    await insertIncident(job.body.id, 'failing', true);
    await insertIncident(other.body.id, 'dead', false);
    await h.db.pool.query(
      `INSERT INTO alert_notifications (id, tenant_id, incident_id, channel_id, event, status, attempts, sent_at)
       VALUES ($1, $2, $3, 'ach_X', 'opened', 'sent', 1, now())`,
      [newId('ntf'), t.tenantId, open],
    );
    const view = await jobAlerts(h.deps, viewer, job.body.id);
    expect(view.openIncidents).toHaveLength(1);
    expect(view.openIncidents[0]).toMatchObject({
      id: open,
      jobId: job.body.id,
      kind: 'dead',
      resolvedAt: null,
      notifications: [{ channelId: 'ach_X', event: 'opened', status: 'sent' }],
    });
  });

  it('answers not found for another tenant’s or a deleted job, and needs the read scopes', async () => {
    const job = await api.post('/api/v1/jobs', jobBody());
    const stranger = await makeTenant(h);
    await expect(jobAlerts(h.deps, stranger.actor, job.body.id)).rejects.toMatchObject({ code: 'not_found' });
    const jobsOnly: Actor = { type: 'api_key', id: 'key_jobs', tenantId: t.tenantId, scopes: ['jobs:read'] };
    await expect(jobAlerts(h.deps, jobsOnly, job.body.id)).rejects.toMatchObject({ code: 'forbidden' });
    expect((await api.del(`/api/v1/jobs/${job.body.id}`)).status).toBe(204);
    await expect(jobAlerts(h.deps, viewer, job.body.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
