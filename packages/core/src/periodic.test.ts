import { describe, expect, it } from 'vitest';
import { PeriodicTask } from './periodic';

describe('PeriodicTask', () => {
  it('repeats rounds one after another, goes on after a failing round, and stop() waits for the round in progress', async () => {
    let rounds = 0;
    let inFlight = 0;
    let overlapped = false;
    const errors: unknown[] = [];
    const outcomes: string[] = [];
    let release: (() => void) | undefined;
    const task = new PeriodicTask(
      async () => {
        rounds++;
        inFlight++;
        if (inFlight > 1) overlapped = true;
        try {
          if (rounds === 2) throw new Error('round 2 failed');
          if (rounds === 4) await new Promise<void>((r) => (release = r));
        } finally {
          inFlight--;
        }
      },
      1,
      (err) => {
        errors.push(err);
        outcomes.push('failed');
      },
      () => outcomes.push('worked'),
    );
    task.start();
    while (rounds < 4) await new Promise((r) => setTimeout(r, 2));
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(stopped).toBe(false);
    release?.();
    await stopping;
    const after = rounds;
    await new Promise((r) => setTimeout(r, 10));
    expect(rounds).toBe(after);
    expect(overlapped).toBe(false);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('round 2 failed');
    expect(outcomes).toEqual(['worked', 'failed', 'worked', 'worked']);
  });
});
