// verifyWebhook against signatures made by the two signers that matter: Belfry's own
// (packages/core, what the engine sends) and the reference `standardwebhooks` package.
import { generateSigningSecret, webhookSignatureHeader } from '@belfry/core';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks';

const secret = generateSigningSecret();
const previous = generateSigningSecret();
const NOW = new Date('2026-12-01T07:00:03Z');
const ts = Math.floor(NOW.getTime() / 1000) - 3;
const id = 'run_01JZ8X3K4Q5R6S7T8V9W0XYZAB';
const body = JSON.stringify({ report: 'daily', city: 'Zürich' });
const options = { now: () => NOW };

function belfryHeaders(secrets: string[], over: Record<string, string> = {}): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': webhookSignatureHeader(secrets, id, ts, body),
    'belfry-job-id': 'job_01JZ8X3K4Q5R6S7T8V9W0XYZAC',
    'belfry-scheduled-time': '2026-12-01T07:00:00.000Z',
    'belfry-attempt': '2',
    ...over,
  };
}

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
  return 'verified';
}

describe('verifyWebhook', () => {
  it('verifies what Belfry signs and answers the delivery parts', () => {
    const verified = verifyWebhook(body, belfryHeaders([secret]), secret, options);
    expect(verified).toEqual({
      id,
      timestamp: new Date(ts * 1000),
      payload: { report: 'daily', city: 'Zürich' },
      jobId: 'job_01JZ8X3K4Q5R6S7T8V9W0XYZAC',
      scheduledTime: '2026-12-01T07:00:00.000Z',
      attempt: 2,
    });
  });

  it('verifies what the standardwebhooks package signs', () => {
    const signature = new Webhook(secret).sign(id, new Date(ts * 1000), body);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
    expect(verifyWebhook(body, headers, secret, options).id).toBe(id);
  });

  it('takes the raw bytes, a Fetch Headers object and Node-style array values', () => {
    const headers = belfryHeaders([secret]);
    const bytes = new TextEncoder().encode(body);
    expect(verifyWebhook(bytes, new Headers(headers), secret, options).payload).toEqual(JSON.parse(body));
    const node: WebhookHeaders = { ...headers, 'webhook-signature': [headers['webhook-signature'] as string] };
    expect(verifyWebhook(Buffer.from(body), node, [secret], options).id).toBe(id);
    const mixedCase = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(body, mixedCase, secret, options).id).toBe(id);
  });

  it('during a rotation, either secret verifies a delivery signed with both', () => {
    const headers = belfryHeaders([secret, previous]);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(reason(() => verifyWebhook(body, headers, secret, options))).toBe('verified');
    expect(reason(() => verifyWebhook(body, headers, previous, options))).toBe('verified');
    // a receiver that holds both (rolling over) verifies a delivery signed with only the new one
    expect(reason(() => verifyWebhook(body, belfryHeaders([secret]), [previous, secret], options))).toBe('verified');
  });

  it('refuses a changed body, another id, another timestamp, or another secret', () => {
    const headers = belfryHeaders([secret]);
    expect(reason(() => verifyWebhook(body.replace('daily', 'weekly'), headers, secret, options))).toBe(
      'no-matching-signature',
    );
    expect(reason(() => verifyWebhook(body, { ...headers, 'webhook-id': `${id}X` }, secret, options))).toBe(
      'no-matching-signature',
    );
    expect(
      reason(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': String(ts - 1) }, secret, options)),
    ).toBe('no-matching-signature');
    expect(reason(() => verifyWebhook(body, headers, generateSigningSecret(), options))).toBe('no-matching-signature');
  });

  it('ignores signatures of other versions and malformed entries, but not a valid one beside them', () => {
    const valid = belfryHeaders([secret])['webhook-signature'] as string;
    const v2 = valid.replace('v1,', 'v2,');
    expect(
      reason(() => verifyWebhook(body, belfryHeaders([secret], { 'webhook-signature': v2 }), secret, options)),
    ).toBe('no-matching-signature');
    const noisy = `v1a,xyz v1,short ${v2} ${valid}`;
    expect(
      reason(() => verifyWebhook(body, belfryHeaders([secret], { 'webhook-signature': noisy }), secret, options)),
    ).toBe('verified');
  });

  it('refuses timestamps outside the tolerance, either way', () => {
    const at = (seconds: number) => ({ now: () => new Date(NOW.getTime() + seconds * 1000) });
    const headers = belfryHeaders([secret]);
    expect(reason(() => verifyWebhook(body, headers, secret, at(296)))).toBe('verified');
    expect(reason(() => verifyWebhook(body, headers, secret, at(304)))).toBe('timestamp-too-old');
    expect(reason(() => verifyWebhook(body, headers, secret, at(-400)))).toBe('timestamp-too-new');
    expect(reason(() => verifyWebhook(body, headers, secret, { ...at(3600), toleranceSeconds: 7200 }))).toBe(
      'verified',
    );
    expect(reason(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': '1.5e9' }, secret, options))).toBe(
      'invalid-timestamp',
    );
  });

  it('names missing headers', () => {
    const { 'webhook-signature': _, ...unsigned } = belfryHeaders([secret]);
    expect(reason(() => verifyWebhook(body, unsigned, secret, options))).toBe('missing-headers');
    expect(reason(() => verifyWebhook(body, new Headers(), secret, options))).toBe('missing-headers');
  });

  it('answers an empty body as no payload', () => {
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': webhookSignatureHeader([secret], id, ts, ''),
    };
    const verified = verifyWebhook('', headers, secret, options);
    expect(verified.payload).toBeUndefined();
    expect(verified.attempt).toBeNull();
  });

  it('throws on a secret that is not a whsec_ secret: a configuration bug, not a bad delivery', () => {
    const headers = belfryHeaders([secret]);
    expect(() => verifyWebhook(body, headers, 'not-a-secret', options)).toThrow(TypeError);
    expect(() => verifyWebhook(body, headers, 'whsec_!!!', options)).toThrow(TypeError);
    expect(() => verifyWebhook(body, headers, [], options)).toThrow(TypeError);
  });
});
