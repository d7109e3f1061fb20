// ReadyQueues: round-robin over tenants with work, highest priority first within a tenant.
import { describe, expect, it } from 'vitest';
import { ReadyQueues } from './ready-queues';

const pass = (ready: ReadyQueues) => [...ready.turns()].map((t) => `${t.tenantId}:${t.priority}`);

describe('ReadyQueues', () => {
  it('offers each tenant with work once per pass, its highest priority first', () => {
    const ready = new ReadyQueues();
    ready.mark('a', 'low');
    ready.mark('b', 'normal');
    ready.mark('a', 'high');
    expect(pass(ready)).toEqual(['a:high', 'b:normal']);
    ready.drop('a', 'high');
    expect(pass(ready)).toEqual(['a:low', 'b:normal']);
  });

  it('starts each pass where the last one stopped, so no tenant is always first', () => {
    const ready = new ReadyQueues();
    for (const t of ['a', 'b', 'c']) ready.mark(t, 'normal');
    const first = ready.turns();
    expect(first.next().value?.tenantId).toBe('a'); // a pass stopped after one turn (no slots left)
    expect(pass(ready)).toEqual(['b:normal', 'c:normal', 'a:normal']);
  });

  it('forgets a tenant once its last queue drained, and takes it back when work comes', () => {
    const ready = new ReadyQueues();
    ready.mark('a', 'normal');
    ready.mark('b', 'normal');
    ready.drop('a', 'normal');
    ready.drop('a', 'high'); // not marked: nothing happens
    expect(pass(ready)).toEqual(['b:normal']);
    ready.mark('a', 'low');
    expect(pass(ready).sort()).toEqual(['a:low', 'b:normal']);
  });
});
