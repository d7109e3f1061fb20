// The nats kind's schema: URL rules (nats:// or tls://, credentials allowed, no path),
// subjects without wildcards, and the answered view with the password masked.
import { describe, expect, it } from 'vitest';
import { natsKind, NatsTargetInput } from './schema';

const issues = (value: unknown) =>
  NatsTargetInput.safeParse(value).error?.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) ?? [];

const base = { type: 'nats', url: 'nats://user:pass@nats.example.com:4222', subject: 'reports.daily' };

describe('nats target input', () => {
  it('defaults headers', () => {
    expect(NatsTargetInput.parse(base)).toEqual({ ...base, headers: {} });
  });

  it('accepts nats:// and tls://, with a user and password, a token, or nothing', () => {
    for (const url of ['tls://nats.example.com', 'nats://s3cr3t-token@nats.example.com', 'nats://10.0.0.2:4222/']) {
      expect(issues({ ...base, url }), url).toEqual([]);
    }
  });

  it('refuses other schemes and paths', () => {
    expect(issues({ ...base, url: 'http://nats.example.com' })[0]?.message).toMatch(/nats:\/\/ or tls:\/\//);
    expect(issues({ ...base, url: 'nats://nats.example.com/x' })[0]?.message).toMatch(/must not have a path/);
  });

  it('refuses wildcards, empty tokens and spaces in the subject', () => {
    for (const subject of ['a.*', 'a.>', 'a..b', '.a', 'a b', '', 'x'.repeat(256)]) {
      expect(
        issues({ ...base, subject }).map((i) => i.path),
        subject,
      ).toEqual(['subject']);
    }
  });

  it('answers the URL with its password masked and declares the secrets', () => {
    expect(natsKind.toView(NatsTargetInput.parse(base))).toEqual({
      type: 'nats',
      url: 'nats://user:***@nats.example.com:4222',
      subject: 'reports.daily',
      headers: {},
    });
    expect(natsKind.secrets).toEqual({ urlPasswords: ['url'], namedMaps: ['headers'] });
  });
});
