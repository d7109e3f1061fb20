// Stored targets without their defaults: what is left out, and that reading fills it back in.
import { describe, expect, it } from 'vitest';
import { withoutTargetDefaults, withTargetDefaults } from './defaults';
import { revealTarget, sealTarget, TargetInput, targetView } from './schemas';

const keyring = {
  seal: (plain: string) => Buffer.from(plain),
  open: (sealed: Uint8Array) => Buffer.from(sealed).toString(),
};

describe('withoutTargetDefaults', () => {
  it('leaves out the fields at their kind default, never the type', () => {
    const http = TargetInput.parse({ url: 'https://e.com/hook' });
    expect(withoutTargetDefaults(http)).toEqual({ type: 'http', url: 'https://e.com/hook' });
    const container = TargetInput.parse({ type: 'container', image: 'alpine:3', memoryMb: 256 });
    expect(withoutTargetDefaults(container)).toEqual({ type: 'container', image: 'alpine:3', memoryMb: 256 });
    expect(withoutTargetDefaults({ type: 'pull', queue: 'q' })).toEqual({ type: 'pull', queue: 'q' });
  });

  it('keeps what differs from a default', () => {
    const t = { type: 'http', url: 'https://e.com', method: 'GET', headers: { a: 'b' } };
    expect(withoutTargetDefaults(t)).toEqual(t);
    const amqp = TargetInput.parse({ type: 'amqp', url: 'amqp://h', exchange: 'x', persistent: false });
    expect(withoutTargetDefaults(amqp)).toEqual({ type: 'amqp', url: 'amqp://h', exchange: 'x', persistent: false });
  });

  it('leaves an unknown kind as it is', () => {
    expect(withoutTargetDefaults({ type: 'grpc', headers: {} })).toEqual({ type: 'grpc', headers: {} });
  });
});

describe('the defaults stored targets rely on', () => {
  // Stored targets leave these out: changing one changes every stored job that relied on it.
  // Change one only with a migration writing the old value into those rows (defaults.ts).
  it('are what they were when targets were first stored without them', () => {
    const bare = (type: string) => withTargetDefaults({ type });
    expect(bare('http')).toEqual({ type: 'http', method: 'POST', headers: {} });
    expect(bare('amqp')).toEqual({ type: 'amqp', routingKey: '', persistent: true, headers: {} });
    expect(bare('nats')).toEqual({ type: 'nats', headers: {} });
    expect(bare('pull')).toEqual({ type: 'pull' });
    expect(bare('container')).toEqual({
      type: 'container',
      env: {},
      memoryMb: 512,
      cpus: 1,
      network: 'none',
      pullPolicy: 'if-missing',
    });
  });
});

describe('withTargetDefaults', () => {
  it('gives back every kind whole', () => {
    for (const input of [
      { url: 'https://e.com/hook' },
      { url: 'https://e.com/hook', method: 'PUT', headers: { 'x-team': 'a' } },
      { type: 'amqp', url: 'amqp://h', exchange: 'x' },
      { type: 'nats', url: 'nats://h', subject: 's' },
      { type: 'pull', queue: 'q' },
      { type: 'container', image: 'alpine:3', command: ['true'], cpus: 2 },
    ]) {
      const whole = TargetInput.parse(input);
      expect(withTargetDefaults(withoutTargetDefaults(whole))).toEqual(whole);
    }
  });

  it('reads a target stored whole (before defaults were left out) the same', () => {
    const whole = TargetInput.parse({ url: 'https://e.com/hook' });
    expect(withTargetDefaults(whole)).toEqual(whole);
    expect(targetView(whole)).toEqual(targetView(withoutTargetDefaults(whole)));
  });

  it('never shares a default object between two reads', () => {
    const a = withTargetDefaults({ type: 'http', url: 'https://e.com' }) as unknown as {
      headers: Record<string, string>;
    };
    a.headers.x = 'y';
    expect(withTargetDefaults({ type: 'http', url: 'https://e.com' })).toMatchObject({ headers: {} });
  });
});

describe('sealing and revealing', () => {
  it('stores a target without its defaults and delivers it whole, secrets included', () => {
    const input = TargetInput.parse({ url: 'https://e.com/hook', headers: { authorization: 'Bearer s' } });
    const { stored, sealed } = sealTarget(keyring, 'ten_1', input, null);
    expect(stored).toEqual({ type: 'http', url: 'https://e.com/hook', headers: { authorization: '***' } });
    expect(revealTarget(keyring, 'ten_1', stored, sealed)).toEqual(input);
    const plain = sealTarget(keyring, 'ten_1', TargetInput.parse({ url: 'https://e.com/hook' }), null);
    expect(plain).toMatchObject({ stored: { type: 'http', url: 'https://e.com/hook' }, sealed: null });
    expect(revealTarget(keyring, 'ten_1', plain.stored, null)).toEqual({
      type: 'http',
      url: 'https://e.com/hook',
      method: 'POST',
      headers: {},
    });
  });
});
