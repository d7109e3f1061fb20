// The registry's schema half: the target union assembled from the kinds, routing of runs to lanes
// and queues by target kind, and the secret-name rule of docs/api.md, "Write-only secrets in
// targets".
import { describe, expect, it } from 'vitest';
import { isSecretName, KINDS, kindOf, kindsIn, laneOf, routeOf, TargetInput, targetView } from './schemas';

describe('TargetInput', () => {
  it('is the union of the registered kinds; http is the default', () => {
    expect(KINDS.map((k) => k.type)).toContain('http');
    expect(TargetInput.parse({ url: 'https://example.com' })).toMatchObject({ type: 'http', method: 'POST' });
  });

  it('refuses a kind nobody registered at `type`', () => {
    const result = TargetInput.safeParse({ type: 'grpc', url: 'https://example.com' });
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['type']);
  });
});

describe('routing', () => {
  it('queues push kinds per tenant and priority in the push lane', () => {
    expect(routeOf({ type: 'http' }, 'ten_1', 'high')).toEqual({ lane: 'push', tenantId: 'ten_1', priority: 'high' });
  });

  it('queues an unknown kind where a worker will dead-letter it rather than lose it', () => {
    expect(laneOf('grpc')).toBe('push');
    expect(routeOf({ type: 'grpc' }, 'ten_1', 'low')).toEqual({ lane: 'push', tenantId: 'ten_1', priority: 'low' });
  });

  it('lists the kinds of the lanes a node serves', () => {
    expect(kindsIn(['push'])).toContain('http');
    expect(kindsIn(['pull'])).not.toContain('http');
    expect(kindOf('http')?.lane).toBe('push');
  });
});

describe('targetView', () => {
  it('answers a stored target through its kind', () => {
    expect(targetView({ type: 'http', url: 'https://e.com', method: 'POST', headers: { a: 'b' } })).toEqual({
      type: 'http',
      url: 'https://e.com',
      method: 'POST',
      headers: { a: 'b' },
    });
  });
});

describe('isSecretName', () => {
  it('matches the credential names of docs/api.md (write-only secrets), case-insensitively', () => {
    for (const name of [
      'Authorization',
      'proxy-authorization',
      'Cookie',
      'x-api-key',
      'X-Auth-Token',
      'DB_PASSWORD',
      'client_secret',
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['x-team', 'content-type', 'accept', 'x-request-id'])
      expect(isSecretName(name), name).toBe(false);
  });
});
