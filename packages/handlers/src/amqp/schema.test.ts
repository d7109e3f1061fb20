// The amqp kind's schema: defaults, URL rules (schemes, credentials allowed, one vhost), AMQP
// name limits, and the answered view with the password masked.
import { describe, expect, it } from 'vitest';
import { maskUrlPassword } from '../brokers/broker-url';
import { amqpKind, AmqpTargetInput } from './schema';

const issues = (value: unknown) =>
  AmqpTargetInput.safeParse(value).error?.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) ?? [];

const base = { type: 'amqp', url: 'amqp://user:pass@rabbit.example.com:5672/vhost', exchange: 'jobs' };

describe('amqp target input', () => {
  it('defaults routingKey, persistent and headers', () => {
    expect(AmqpTargetInput.parse(base)).toEqual({ ...base, routingKey: '', persistent: true, headers: {} });
  });

  it('accepts amqp:// and amqps://, with or without credentials and vhost', () => {
    for (const url of [
      'amqps://user:p%40ss@rabbit.example.com/vhost',
      'amqp://rabbit.example.com',
      'amqp://u:p@[::1]:5672/%2F',
      'amqp://u:p@10.0.0.1/',
    ]) {
      expect(issues({ ...base, url }), url).toEqual([]);
    }
  });

  it('refuses other schemes, queries, nested paths and malformed hosts', () => {
    const cases: Array<[string, RegExp]> = [
      ['http://rabbit.example.com', /must use amqp:\/\/ or amqps:\/\//],
      ['amqp://rabbit.example.com/a/b', /one virtual host/],
      ['amqp://rabbit.example.com/?heartbeat=5', /query string/],
      ['amqp://user:pass@', /absolute|host/],
      ['amqp://rab bit', /spaces/],
      ['amqp://[::1', /absolute/],
    ];
    for (const [url, message] of cases) {
      const found = issues({ ...base, url });
      expect(
        found.map((i) => i.path),
        url,
      ).toEqual(['url']);
      expect(found[0]?.message, url).toMatch(message);
    }
  });

  it('checks exchange names and AMQP short strings', () => {
    expect(issues({ ...base, exchange: 'has space' })[0]?.path).toBe('exchange');
    expect(issues({ ...base, exchange: 'x'.repeat(256) }).map((i) => i.path)).toContain('exchange');
    expect(issues({ ...base, routingKey: 'é'.repeat(128) })[0]?.path).toBe('routingKey');
    expect(issues({ ...base, exchange: '' })).toEqual([]);
    expect(issues({ type: 'amqp', url: base.url })[0]?.path).toBe('exchange');
  });

  it('refuses headers Belfry sets, and unknown fields', () => {
    expect(issues({ ...base, headers: { 'webhook-id': 'x' } })[0]?.path).toBe('headers.webhook-id');
    expect(issues({ ...base, method: 'POST' })).toEqual([{ path: '', message: 'Unrecognized key: "method"' }]);
  });

  it('answers the URL with its password masked and declares the secrets', () => {
    const stored = AmqpTargetInput.parse({ ...base, headers: { authorization: 'Bearer x' } });
    expect(amqpKind.toView(stored)).toEqual({
      type: 'amqp',
      url: 'amqp://user:***@rabbit.example.com:5672/vhost',
      exchange: 'jobs',
      routingKey: '',
      persistent: true,
      headers: { authorization: 'Bearer x' },
    });
    expect(amqpKind.secrets).toEqual({ urlPasswords: ['url'], namedMaps: ['headers'] });
  });
});

describe('maskUrlPassword', () => {
  it('masks only the password, keeping the rest as written', () => {
    expect(maskUrlPassword('amqp://u:p@h/v')).toBe('amqp://u:***@h/v');
    expect(maskUrlPassword('amqps://u:p%40ss@h:5671')).toBe('amqps://u:***@h:5671');
    expect(maskUrlPassword('nats://token@h:4222')).toBe('nats://token@h:4222');
    expect(maskUrlPassword('amqp://h/v')).toBe('amqp://h/v');
    expect(maskUrlPassword('amqp://u:***@h/v')).toBe('amqp://u:***@h/v');
    expect(maskUrlPassword('amqp://h/v@x:y')).toBe('amqp://h/v@x:y');
  });
});
