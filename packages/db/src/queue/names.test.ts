// Queue names by lane: push and container queues per tenant and priority, pull queues per
// tenant and queue name; every name parses back to the route it was made from.
import type { QueueRoute } from '@belfry/core';
import { describe, expect, it } from 'vitest';
import { lanePrefix, parseQueueName, queueName } from './names';

const TENANT = 'ten_01KB3Y8J2Q7Z9V4N6M5X0C1R2T';

describe('queue names', () => {
  it('keeps the push lane where it has always been: t.<tenant>.<priority>', () => {
    expect(queueName({ lane: 'push', tenantId: TENANT, priority: 'normal' })).toBe(`t.${TENANT}.normal`);
  });

  it('round-trips every lane', () => {
    const routes: QueueRoute[] = [
      { lane: 'push', tenantId: TENANT, priority: 'high' },
      { lane: 'container', tenantId: TENANT, priority: 'low' },
      { lane: 'pull', tenantId: TENANT, queue: 'reports.daily-v2_x' },
    ];
    for (const route of routes) {
      const name = queueName(route);
      expect(name.startsWith(lanePrefix(route.lane)), name).toBe(true);
      expect(parseQueueName(name)).toEqual(route);
    }
  });

  it('parses nothing else', () => {
    for (const name of ['t.ten_1.urgent', 'x.ten_1.high', 't.ten.1.high', 'p.ten_1.', 'p.ten_1.a b', 'belfry']) {
      expect(parseQueueName(name), name).toBeNull();
    }
  });
});
