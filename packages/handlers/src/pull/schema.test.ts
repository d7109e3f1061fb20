// The pull kind: the queue name rule of docs/api.md, "Targets", its routing to the tenant's pull
// queue by name, and that no engine handler exists for it.
import { describe, expect, it } from 'vitest';
import { createHandlerRegistry, defaultHandlers } from '../registry';
import { laneOf, routeOf, TargetInput, targetView } from '../schemas';

describe('pull targets', () => {
  it('accept queue names of letters, digits, dot, underscore and dash (1..100)', () => {
    for (const queue of ['reports', 'a', 'reports.daily-v2_x', 'x'.repeat(100)]) {
      expect(TargetInput.parse({ type: 'pull', queue })).toEqual({ type: 'pull', queue });
    }
  });

  it('refuse other queue names and unknown fields, naming the field', () => {
    for (const queue of ['', 'a b', 'x'.repeat(101), 'ü', 'a/b']) {
      const result = TargetInput.safeParse({ type: 'pull', queue });
      expect(
        result.error?.issues.map((i) => i.path.join('.')),
        queue,
      ).toEqual(['queue']);
    }
    expect(TargetInput.safeParse({ type: 'pull', queue: 'q', url: 'https://e.com' }).success).toBe(false);
    expect(TargetInput.safeParse({ type: 'pull' }).success).toBe(false);
  });

  it('route to the tenant’s queue of that name, in the pull lane', () => {
    expect(laneOf('pull')).toBe('pull');
    expect(routeOf({ type: 'pull', queue: 'reports' }, 'ten_1', 'high')).toEqual({
      lane: 'pull',
      tenantId: 'ten_1',
      queue: 'reports',
    });
    expect(targetView({ type: 'pull', queue: 'reports' })).toEqual({ type: 'pull', queue: 'reports' });
  });

  it('have no engine handler', async () => {
    const registry = createHandlerRegistry(defaultHandlers({ allowPrivateTargets: false, lanes: ['push', 'pull'] }));
    expect(registry.get('pull')).toBeUndefined();
    await registry.close();
  });
});
