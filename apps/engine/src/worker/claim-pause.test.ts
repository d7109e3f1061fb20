import { createLogger } from '@belfry/log';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logLines } from '../../../../test/log-lines';
import { ClaimPause } from './claim-pause';

function capture() {
  const { lines, destination } = logLines();
  return { lines, log: createLogger({ level: 'info', base: {}, destination }) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ClaimPause', () => {
  it('logs an outage as its first failure in full, then the 2nd, 4th … briefly, and one line when claims work again', () => {
    vi.useFakeTimers();
    const { lines, log } = capture();
    const pause = new ClaimPause(() => {}, log);
    pause.succeeded(); // no streak: nothing to say
    const down = Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
    for (let i = 0; i < 5; i++) pause.failed(down, { queue: 't.ten_1.normal' });
    pause.succeeded();
    pause.succeeded();
    expect(lines.map((l) => [l.level, l.msg, l.failures])).toEqual([
      [50, 'fetch and claim failed', undefined],
      [40, 'fetch and claim failed again', 2],
      [40, 'fetch and claim failed again', 4],
      [30, 'fetch and claim works again', 5],
    ]);
    expect(lines[0]).toMatchObject({ queue: 't.ten_1.normal', err: { message: down.message, code: '57P01' } });
    expect(lines[1]).toMatchObject({ err: down.message });
    pause.stop();
  });

  it('pauses claims after a failure and pumps again when the pause is over', () => {
    vi.useFakeTimers();
    const { log } = capture();
    const resume = vi.fn();
    const pause = new ClaimPause(resume, log);
    pause.failed(new Error('down'), {});
    expect(pause.paused).toBe(true);
    vi.advanceTimersByTime(2_000); // the first delay is at most the backoff's cap
    expect(resume).toHaveBeenCalledTimes(1);
    expect(pause.paused).toBe(false);
    pause.stop();
  });
});
