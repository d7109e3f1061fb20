import { describe, expect, it } from 'vitest';
import type { Actor } from '../context';
import { authorize, hasScope } from './scopes';

const key = (scopes: string[]): Actor => ({ type: 'api_key', id: 'key_1', tenantId: 'ten_1', scopes });
const user = (role: 'owner' | 'admin' | 'member' | 'viewer'): Actor => ({
  type: 'user',
  id: 'usr_1',
  tenantId: 'ten_1',
  role,
});

describe('scopes', () => {
  it('admin implies everything; write implies read of the same resource only', () => {
    expect(hasScope(key(['admin']), 'runs:write')).toBe(true);
    expect(hasScope(key(['jobs:write']), 'jobs:read')).toBe(true);
    expect(hasScope(key(['jobs:write']), 'runs:read')).toBe(false);
    expect(hasScope(key(['jobs:read']), 'jobs:write')).toBe(false);
    expect(hasScope(key(['runs:write']), 'admin')).toBe(false);
  });

  it('queues:consume is a scope of its own: it implies nothing, only admin implies it', () => {
    expect(hasScope(key(['queues:consume']), 'queues:consume')).toBe(true);
    for (const scope of ['jobs:read', 'jobs:write', 'runs:read', 'runs:write', 'admin'] as const) {
      expect(hasScope(key(['queues:consume']), scope), scope).toBe(false);
    }
    expect(hasScope(key(['admin']), 'queues:consume')).toBe(true);
    expect(hasScope(key(['jobs:write', 'runs:write']), 'queues:consume')).toBe(false);
  });

  it('maps dashboard roles to scopes', () => {
    expect(hasScope(user('owner'), 'admin')).toBe(true);
    expect(hasScope(user('member'), 'jobs:write')).toBe(true);
    expect(hasScope(user('member'), 'admin')).toBe(false);
    expect(hasScope(user('viewer'), 'runs:read')).toBe(true);
    expect(hasScope(user('viewer'), 'runs:write')).toBe(false);
  });

  it('authorize throws a 403 AppError', () => {
    expect(() => authorize(key(['jobs:read']), 'jobs:write')).toThrow(
      expect.objectContaining({ code: 'forbidden', status: 403 }),
    );
  });
});
