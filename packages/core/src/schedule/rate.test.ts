import { describe, expect, it } from 'vitest';
import { runsPerMinute } from './rate';

const cron = (expression: string) => runsPerMinute({ type: 'cron', expression, timezone: 'UTC' });

describe('runsPerMinute', () => {
  it('counts an every-second cron as 60 a minute, whatever days it is limited to', () => {
    expect(cron('* * * * * *')).toBe(60);
    expect(cron('* * * * * 1')).toBe(60);
    expect(cron('*/2 * * * * *')).toBe(30);
  });

  it('counts five-field crons by minutes and hours', () => {
    expect(cron('* * * * *')).toBe(1);
    expect(cron('*/5 * * * *')).toBe(0.2);
    expect(cron('0 * * * *')).toBeCloseTo(1 / 60);
    expect(cron('0 7 * * *')).toBeCloseTo(1 / 1440);
    expect(cron('@hourly')).toBeCloseTo(1 / 60);
  });

  it('counts intervals as 60 / everySeconds and one-offs as 0', () => {
    expect(runsPerMinute({ type: 'interval', everySeconds: 1, anchor: new Date() })).toBe(60);
    expect(runsPerMinute({ type: 'interval', everySeconds: 300, anchor: new Date() })).toBe(0.2);
    expect(runsPerMinute({ type: 'once', runAt: new Date() })).toBe(0);
  });
});
