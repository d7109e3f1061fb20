import { describe, expect, it } from 'vitest';
import { FailedRounds } from './backoff';

describe('FailedRounds', () => {
  it('counts one streak for the delay and the log lines, and starts over after a success', () => {
    const lines: { level: string; fields: Record<string, unknown>; msg?: string }[] = [];
    const at = (level: string) => (fields: object | string, msg?: string) =>
      lines.push({
        level,
        fields: typeof fields === 'string' ? { msg: fields } : (fields as Record<string, unknown>),
        msg,
      });
    const log = { info: at('info'), warn: at('warn'), error: at('error') };
    const rounds = new FailedRounds(log, 'scheduler scan', { initialMs: 100, maxMs: 1_000, random: () => 1 });
    rounds.succeeded(); // nothing failed yet: no line
    const down = new Error('connect ECONNREFUSED');
    expect([1, 2, 3, 4].map(() => rounds.failed(down, { loop: 'scan' }))).toEqual([100, 200, 400, 800]);
    expect(rounds.streak).toBe(4);
    // a floor, as the reaper's interval: the delay and its line say the longer wait
    expect(rounds.failed(down, {}, 5_000)).toBe(5_000);
    rounds.succeeded();
    expect(rounds.streak).toBe(0);
    expect(rounds.failed(down)).toBe(100);
    expect(lines.map((l) => [l.level, l.msg, l.fields.delayMs, l.fields.failures])).toEqual([
      ['error', 'scheduler scan failed', 100, undefined],
      ['warn', 'scheduler scan failed again', 200, 2],
      ['warn', 'scheduler scan failed again', 800, 4],
      ['info', 'scheduler scan works again', undefined, 5],
      ['error', 'scheduler scan failed', 100, undefined],
    ]);
    expect(lines[0]?.fields).toMatchObject({ loop: 'scan', err: down });
  });
});
