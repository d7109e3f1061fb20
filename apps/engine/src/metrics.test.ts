// belfry_alert_notifications_total comes from a source (the outbox query) read at scrape time:
// answers are reused for the cache time, a failed read is not kept, and each scrape shows the
// source's figures as they are (not added up across scrapes).
import { describe, expect, it } from 'vitest';
import { Metrics, type NotificationCount } from './metrics';

const series = (text: string, labels: string) =>
  text.split('\n').find((l) => l.startsWith(`belfry_alert_notifications_total{${labels}} `));

describe('Metrics: alert notifications', () => {
  it('shows the source’s figures, reads it once per cache time and retries a failed read', async () => {
    const metrics = new Metrics();
    let calls = 0;
    let answer: () => Promise<NotificationCount[]> = async () => [
      { channel_type: 'slack', status: 'sent', n: 3 },
      { channel_type: 'slack', status: 'failed', n: 1 },
    ];
    metrics.setNotificationSource(() => {
      calls++;
      return answer();
    }, 3_600_000);
    const first = await metrics.registry.metrics();
    expect(series(first, 'channel_type="slack",status="sent"')).toBe(
      'belfry_alert_notifications_total{channel_type="slack",status="sent"} 3',
    );
    const second = await metrics.registry.metrics();
    expect(calls).toBe(1);
    // Figures are set, not accumulated, on every scrape.
    expect(series(second, 'channel_type="slack",status="sent"')).toMatch(/ 3$/);

    const failing = new Metrics();
    let n = 0;
    answer = async () => {
      n++;
      if (n === 1) throw new Error('database down');
      return [{ channel_type: 'email', status: 'sent', n: 7 }];
    };
    failing.setNotificationSource(() => answer(), 3_600_000);
    expect(series(await failing.registry.metrics(), 'channel_type="email",status="sent"')).toBeUndefined();
    expect(series(await failing.registry.metrics(), 'channel_type="email",status="sent"')).toMatch(/ 7$/);
    expect(n).toBe(2);

    const uncached = new Metrics();
    let reads = 0;
    uncached.setNotificationSource(async () => {
      reads++;
      return [{ channel_type: 'webhook', status: 'retry', n: reads }];
    }, 0);
    await uncached.registry.metrics();
    expect(series(await uncached.registry.metrics(), 'channel_type="webhook",status="retry"')).toMatch(/ 2$/);
  });
});
