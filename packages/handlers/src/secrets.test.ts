import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpKind } from './http/schema';
import { defineKind, type SecretFields } from './kind';
import { keepMaskedSecrets, maskTarget, revealSecrets, separateSecrets } from './secrets';

// Test-only kinds for the variants no shipped kind declared when this was written: a broker
// URL with a password, a field secret as a whole, and a map of environment variables.
const brokerKind = defineKind({
  type: 'http', // the type is irrelevant to the secret mechanics
  lane: 'push',
  input: z.strictObject({ type: z.literal('http'), url: z.string(), token: z.string().optional() }),
  view: z.strictObject({ type: z.literal('http'), url: z.string(), token: z.string().optional() }),
  toView: (t) => t,
  secrets: { urlPasswords: ['url'], values: ['token'], namedMaps: ['env'] },
});
const spec: SecretFields = brokerKind.secrets;

const roundTrip = (s: SecretFields, target: Record<string, unknown>) => {
  const { masked, secrets } = separateSecrets(s, target);
  // what is stored in the clear must not contain a secret, and revealing gives the original back
  return { masked, secrets, revealed: revealSecrets(s, masked, secrets) };
};

describe('namedMaps (http headers)', () => {
  const target = {
    type: 'http',
    url: 'https://example.com/hook',
    method: 'POST',
    headers: { Authorization: 'Bearer sk_live_1', 'x-api-key': 'k-2', 'x-team': 'billing', Cookie: '' },
  };

  it('masks credential-named values only and seals them', () => {
    const { masked, secrets, revealed } = roundTrip(httpKind.secrets, target);
    expect(masked.headers).toEqual({ Authorization: '***', 'x-api-key': '***', 'x-team': 'billing', Cookie: '' });
    expect(JSON.stringify(masked)).not.toMatch(/sk_live_1|k-2/);
    expect(secrets?.entries).toEqual([
      { path: ['headers', 'Authorization'], value: 'Bearer sk_live_1' },
      { path: ['headers', 'x-api-key'], value: 'k-2' },
    ]);
    expect(revealed).toEqual(target);
  });

  it('holds no secrets without credential-named headers', () => {
    const plain = { ...target, headers: { 'x-team': 'billing' } };
    expect(separateSecrets(httpKind.secrets, plain)).toEqual({ masked: plain, secrets: null });
  });

  it('keeps the stored value for *** (also in another letter case) and takes new values', () => {
    const input = { ...target, headers: { authorization: '***', 'x-api-key': 'k-new', 'x-team': 'ops' } };
    const { target: kept, issues } = keepMaskedSecrets(httpKind.secrets, input, target);
    expect(issues).toEqual([]);
    expect(kept.headers).toEqual({ authorization: 'Bearer sk_live_1', 'x-api-key': 'k-new', 'x-team': 'ops' });
  });

  it('refuses *** with nothing stored to keep', () => {
    const input = { ...target, headers: { 'x-secret': '***' } };
    expect(keepMaskedSecrets(httpKind.secrets, input, target).issues).toEqual([
      { path: ['headers', 'x-secret'], message: expect.stringContaining('there is none here') },
    ]);
    expect(keepMaskedSecrets(httpKind.secrets, input, null).issues).toHaveLength(1);
  });

  it('masks a target stored in the clear before sealing existed', () => {
    expect(maskTarget(httpKind.secrets, target).headers.Authorization).toBe('***');
    expect(revealSecrets(httpKind.secrets, target, null)).toBe(target);
  });
});

describe('urlPasswords', () => {
  const target = { type: 'http', url: 'amqp://user:p%40ss:w@rabbit.example:5672/vh?heartbeat=5' };

  it('masks the password as written and puts it back exactly', () => {
    const { masked, secrets, revealed } = roundTrip(spec, target);
    expect(masked.url).toBe('amqp://user:***@rabbit.example:5672/vh?heartbeat=5');
    expect(secrets?.entries).toEqual([{ path: ['url'], value: 'p%40ss:w' }]);
    expect(revealed).toEqual(target);
  });

  it('leaves URLs without a password alone', () => {
    for (const url of [
      'amqp://rabbit.example/vh',
      'amqp://user@rabbit.example',
      'nats://h:4222/a@b',
      'amqp://user:@h',
    ]) {
      expect(separateSecrets(spec, { type: 'http', url })).toEqual({ masked: { type: 'http', url }, secrets: null });
    }
  });

  it('keeps the stored password for *** while user, host and port stay, else refuses', () => {
    const samePlace = { type: 'http', url: 'amqp://user:***@rabbit.example:5672/other-vhost' };
    expect(keepMaskedSecrets(spec, samePlace, target)).toEqual({
      target: { type: 'http', url: 'amqp://user:p%40ss:w@rabbit.example:5672/other-vhost' },
      issues: [],
    });
    for (const url of ['amqp://user:***@evil.example:5672/vh', 'amqp://other:***@rabbit.example:5672/vh']) {
      expect(keepMaskedSecrets(spec, { type: 'http', url }, target).issues).toEqual([
        { path: ['url'], message: expect.stringContaining('host or port changed') },
      ]);
    }
  });
});

describe('values (fields secret as a whole)', () => {
  const target = { type: 'http', url: 'nats://h:4222', token: 'tok-123' };

  it('masks, seals and reveals the whole field', () => {
    const { masked, secrets, revealed } = roundTrip(spec, target);
    expect(masked).toEqual({ type: 'http', url: 'nats://h:4222', token: '***' });
    expect(secrets?.entries).toEqual([{ path: ['token'], value: 'tok-123' }]);
    expect(revealed).toEqual(target);
  });

  it('keeps it for ***', () => {
    const { target: kept } = keepMaskedSecrets(spec, { ...target, token: '***' }, target);
    expect(kept.token).toBe('tok-123');
  });
});

describe('namedMaps (container env)', () => {
  it('masks credential-named variables only', () => {
    const target = { type: 'http', url: 'x', env: { DB_PASSWORD: 'hunter2', REGION: 'eu', API_TOKEN: 't' } };
    const { masked, revealed } = roundTrip(spec, target);
    expect(masked.env).toEqual({ DB_PASSWORD: '***', REGION: 'eu', API_TOKEN: '***' });
    expect(revealed).toEqual(target);
  });
});
