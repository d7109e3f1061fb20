import { describe, expect, it } from 'vitest';
import { formatMs, formatRelative, formatSeconds, parseAt, parseDuration } from './durations';

describe('parseDuration', () => {
  it.each([
    ['300', 300],
    ['90s', 90],
    ['5m', 300],
    ['1h', 3600],
    ['1h30m', 5400],
    ['2d', 172_800],
    ['1w', 604_800],
    [' 10M ', 600],
    ['0', 0],
  ])('%s is %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(['', 'm', '5x', '1.5h', '-5m', '5m junk', 'h1'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/not a duration/);
  });
});

describe('parseAt', () => {
  const now = new Date('2026-03-01T12:00:00Z');

  it('takes +duration from now', () => {
    expect(parseAt('+5m', now)).toBe('2026-03-01T12:05:00.000Z');
    expect(parseAt('+1h30m', now)).toBe('2026-03-01T13:30:00.000Z');
  });

  it('takes now', () => {
    expect(parseAt('now', now)).toBe(now.toISOString());
  });

  it('normalises ISO instants with a zone to UTC', () => {
    expect(parseAt('2026-12-01T07:00:00Z', now)).toBe('2026-12-01T07:00:00.000Z');
    expect(parseAt('2026-12-01T08:00:00+01:00', now)).toBe('2026-12-01T07:00:00.000Z');
  });

  it('refuses a local time without a zone, saying so', () => {
    expect(() => parseAt('2026-12-01T07:00:00', now)).toThrow(/no time zone/);
    expect(() => parseAt('2026-12-01', now)).toThrow(/no time zone/);
  });

  it('refuses anything else', () => {
    expect(() => parseAt('tomorrow', now)).toThrow(/not a time/);
    expect(() => parseAt('+soon', now)).toThrow(/not a duration/);
  });
});

describe('formatting', () => {
  it('formats seconds compactly', () => {
    expect(formatSeconds(0)).toBe('0s');
    expect(formatSeconds(45)).toBe('45s');
    expect(formatSeconds(300)).toBe('5m');
    expect(formatSeconds(5400)).toBe('1h30m');
    expect(formatSeconds(90_061)).toBe('1d1h1m1s');
  });

  it('formats attempt durations', () => {
    expect(formatMs(120)).toBe('120ms');
    expect(formatMs(4200)).toBe('4.2s');
    expect(formatMs(42_000)).toBe('42s');
    expect(formatMs(125_000)).toBe('2m 5s');
  });

  it('formats times relative to now', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    expect(formatRelative(null, now)).toBe('-');
    expect(formatRelative(at(300), now)).toBe('now');
    expect(formatRelative(at(5 * 60_000), now)).toBe('in 5m');
    expect(formatRelative(at(-42_000), now)).toBe('42s ago');
    expect(formatRelative(at(119 * 60_000), now)).toBe('in 1h 59m');
    expect(formatRelative(at(-12 * 3_600_000), now)).toBe('12h ago');
    expect(formatRelative(at(3 * 86_400_000 + 2 * 3_600_000), now)).toBe('in 3d 2h');
    expect(formatRelative('2027-01-15T00:00:00.000Z', now)).toBe('2027-01-15');
  });
});
