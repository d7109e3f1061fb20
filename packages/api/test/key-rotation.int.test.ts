// `belfry admin rotate-encryption-key`'s domain half: after it runs with the new key current and
// the old one for decryption, everything opens with the new key alone — signing secrets (also
// in the legacy format older releases wrote), job targets (also ones stored in the clear) and
// alert channel configurations (and a channel still sends, signed, to its secret URL).
import { ChannelSenders, dashboardLinks } from '@belfry/alerts';
import { ALERT_CHANNEL_PURPOSE, Keyring, sealLegacySecret, verifySignature } from '@belfry/core';
import { revealTarget } from '@belfry/handlers/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sink, startSink } from '../../../test/fixtures';
import { getSigningSecret, rotateEncryptionKey, type ServiceDeps, testChannel } from '../src/index';
import { client, createHarness, type Harness, jobBody, makeTenant, silentLog } from './support';

const OLD = 'test-encryption-key-material'; // the harness's key
const NEW = Buffer.alloc(32, 42).toString('base64');
const headers = { Authorization: 'Bearer sk_live_rotate', 'x-team': 'billing' };

let h: Harness;
let receiver: Sink;
let senders: ChannelSenders;

beforeAll(async () => {
  [h, receiver] = await Promise.all([createHarness(), startSink()]);
  senders = new ChannelSenders({ links: dashboardLinks('http://belfry.test'), allowPrivateTargets: true });
});
afterAll(async () => {
  await senders?.close();
  await receiver?.close();
  await h?.close();
});

const withKeys = (keyring: Keyring): ServiceDeps => ({ ...h.deps, keyring });

describe('rotateEncryptionKey', () => {
  it('re-seals signing secrets and targets under the new key; then the old key is not needed', async () => {
    const t = await makeTenant(h);
    const before = await getSigningSecret(h.deps, t.tenantId);
    const api = client(h, t.key);
    const sealedJob = (await api.post('/api/v1/jobs', jobBody({ target: { url: 'https://example.com/a', headers } })))
      .body.id as string;
    const legacyJob = (await api.post('/api/v1/jobs', jobBody())).body.id as string;
    // what an older release left behind: a v1 signing secret and a target in the clear
    const legacySecret = 'whsec_legacy';
    const legacyTenant = await makeTenant(h);
    await h.db.pool.query('UPDATE signing_secrets SET current_secret = $2 WHERE tenant_id = $1', [
      legacyTenant.tenantId,
      sealLegacySecret(OLD, legacySecret),
    ]);
    await h.db.pool.query('UPDATE jobs SET target = $2::jsonb, target_secrets = NULL WHERE id = $1', [
      legacyJob,
      JSON.stringify({ type: 'http', url: 'https://example.com/b', method: 'POST', headers }),
    ]);

    const rotating = Keyring.from(NEW, [OLD]);
    const report = await rotateEncryptionKey({ pool: h.db.pool, keyring: rotating, log: silentLog });
    expect(report.keyId).toBe(rotating.currentKeyId);
    expect(report.signingSecrets.failed).toBe(0);
    expect(report.signingSecrets.resealed).toBeGreaterThanOrEqual(2);
    expect(report.targets).toMatchObject({ resealed: 2, failed: 0 });
    expect(report.alertChannels.failed).toBe(0);

    const newOnly = withKeys(Keyring.from(NEW));
    expect(await getSigningSecret(newOnly, t.tenantId)).toEqual(before);
    expect((await getSigningSecret(newOnly, legacyTenant.tenantId)).secret).toBe(legacySecret);
    for (const id of [sealedJob, legacyJob]) {
      const { rows } = await h.db.pool.query('SELECT tenant_id, target, target_secrets FROM jobs WHERE id = $1', [id]);
      const row = rows[0];
      expect(JSON.stringify(row.target)).not.toContain('sk_live');
      expect(revealTarget(newOnly.keyring, row.tenant_id, row.target, row.target_secrets)).toMatchObject({ headers });
    }

    // idempotent: nothing left to do
    const again = await rotateEncryptionKey({ pool: h.db.pool, keyring: rotating, log: silentLog });
    expect(again.signingSecrets.resealed + again.targets.resealed + again.alertChannels.resealed).toBe(0);
    expect(again.targets.current).toBeGreaterThanOrEqual(2);
  });

  it('re-seals alert channel configurations; the channel then opens and sends with the new key alone', async () => {
    const t = await makeTenant(h);
    const api = client(h, t.key);
    const secretPath = '/hook/alerts?token=rotate-me';
    const created = await api.post('/api/v1/alert-channels', {
      type: 'webhook',
      url: receiver.url.replace(/\/hook$/, secretPath),
    });
    expect(created.status).toBe(201);
    const channelId = created.body.id as string;
    const sealedBefore = await sealedOf(channelId);
    const context = { tenantId: t.tenantId, purpose: ALERT_CHANNEL_PURPOSE };

    const rotating = Keyring.from(NEW, [OLD]);
    const report = await rotateEncryptionKey({ pool: h.db.pool, keyring: rotating, log: silentLog });
    expect(report.alertChannels.failed).toBe(0);
    expect(report.alertChannels.resealed).toBeGreaterThanOrEqual(1);

    const sealedAfter = await sealedOf(channelId);
    expect(sealedAfter.equals(sealedBefore)).toBe(false);
    const newOnly = Keyring.from(NEW);
    expect(newOnly.isCurrent(sealedAfter)).toBe(true);
    expect(JSON.parse(newOnly.open(sealedAfter, context))).toMatchObject({ type: 'webhook' });
    expect(() => Keyring.from(OLD).open(sealedAfter, context)).toThrow();

    // "Send test" with only the new key: the secret URL is reached, signed with the tenant's secret.
    const actor = { type: 'system' as const, id: null, tenantId: t.tenantId };
    const result = await testChannel({ ...withKeys(newOnly), alertSender: senders }, actor, channelId);
    expect(result).toEqual({ delivered: true });
    const got = receiver.deliveries.find((d) => d.url === secretPath);
    if (!got) throw new Error(`nothing arrived at ${secretPath}`);
    const { secret } = await getSigningSecret(withKeys(newOnly), t.tenantId);
    expect(
      verifySignature(
        [secret],
        String(got.headers['webhook-id']),
        Number(got.headers['webhook-timestamp']),
        got.body,
        String(got.headers['webhook-signature']),
      ),
    ).toBe(true);
  });

  it('counts what no configured key opens and leaves it untouched', async () => {
    const t = await makeTenant(h);
    const { rows: before } = await h.db.pool.query('SELECT current_secret FROM signing_secrets WHERE tenant_id = $1', [
      t.tenantId,
    ]);
    const stranger = Keyring.from(Buffer.alloc(32, 1).toString('base64'));
    const report = await rotateEncryptionKey({ pool: h.db.pool, keyring: stranger, log: silentLog });
    expect(report.signingSecrets.failed).toBeGreaterThan(0);
    expect(report.alertChannels.failed).toBeGreaterThan(0); // the previous test's channel
    const { rows: after } = await h.db.pool.query('SELECT current_secret FROM signing_secrets WHERE tenant_id = $1', [
      t.tenantId,
    ]);
    expect(after).toEqual(before);
  });
});

async function sealedOf(channelId: string): Promise<Buffer> {
  const { rows } = await h.db.pool.query<{ sealed: Buffer }>('SELECT sealed FROM alert_channels WHERE id = $1', [
    channelId,
  ]);
  return rows[0]!.sealed;
}
