import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, idTime, isId, newId } from './ids';

const SHAPE = /^[a-z]+_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

describe('newId', () => {
  it('is prefix_ + a 26-char Crockford base32 ULID', () => {
    for (const prefix of ID_PREFIXES) {
      const id = newId(prefix);
      expect(id).toMatch(SHAPE);
      expect(id.startsWith(`${prefix}_`)).toBe(true);
      expect(id.length).toBe(prefix.length + 1 + 26);
    }
  });

  it('encodes the time in the first 10 characters (ULID spec vector)', () => {
    // The ULID spec's example timestamp 1469918176385 encodes as 01ARYZ6S41.
    expect(newId('job', new Date(1469918176385)).slice(4, 14)).toBe('01ARYZ6S41');
    expect(newId('run', new Date(0)).slice(4, 14)).toBe('0000000000');
    expect(newId('run', new Date(2 ** 48 - 1)).slice(4, 14)).toBe('7ZZZZZZZZZ');
  });

  it('is random after the timestamp', () => {
    const t = new Date('2024-05-01T00:00:00Z');
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('run', t)));
    expect(ids.size).toBe(10_000);
    // Every random character position takes many values (catches stuck bits).
    const list = [...ids];
    for (let pos = 14; pos < 30; pos++) {
      expect(new Set(list.map((id) => id[pos])).size, `position ${pos}`).toBe(32);
    }
  });

  it('sorts lexicographically by time across milliseconds', () => {
    const times = [0, 1, 31, 32, 1_000, 1_700_000_000_000, 1_700_000_000_001, 253402300799999];
    const ids = times.map((ms) => newId('run', new Date(ms)));
    expect([...ids].sort()).toEqual(ids);
  });

  it('rejects times a 48-bit timestamp cannot hold', () => {
    expect(() => newId('run', new Date(-1))).toThrow(RangeError);
    expect(() => newId('run', new Date('1969-12-31T23:59:59.999Z'))).toThrow(RangeError);
    expect(() => newId('run', new Date(2 ** 48))).toThrow(RangeError);
    expect(() => newId('run', new Date(Number.NaN))).toThrow(RangeError);
  });

  it('rejects unknown prefixes at runtime', () => {
    expect(() => newId('nope' as never)).toThrow(TypeError);
  });
});

describe('idTime', () => {
  it('round-trips to the millisecond', () => {
    const times = [
      new Date(0),
      new Date(1),
      new Date('2024-02-29T23:59:59.999Z'),
      new Date('2038-01-19T03:14:08.001Z'), // past 32-bit seconds
      new Date('9999-12-31T23:59:59.999Z'),
      new Date(2 ** 48 - 1),
    ];
    for (const t of times) {
      for (const prefix of ID_PREFIXES) {
        expect(idTime(newId(prefix, t))?.getTime(), t.toISOString()).toBe(t.getTime());
      }
    }
    for (let i = 0; i < 1_000; i++) {
      const t = new Date(Math.floor(Math.random() * 2 ** 48));
      expect(idTime(newId('run', t))?.getTime()).toBe(t.getTime());
    }
  });

  it('defaults to now', () => {
    const before = Date.now();
    const ms = idTime(newId('job'))!.getTime();
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now());
  });

  it('returns null for malformed ids', () => {
    const good = newId('run', new Date(1_700_000_000_000));
    for (const bad of [
      '',
      'run',
      'run_',
      good.slice(4), // no prefix
      `${good}0`, // too long
      good.slice(0, -1), // too short
      good.toLowerCase(),
      `run_8${good.slice(5)}`, // first char > 7 overflows 48 bits
      `run_${good.slice(4, 29)}U`, // U is not in the alphabet
      `run_${good.slice(4, 29)}I`,
      `abc_${good.slice(4)}`, // unknown prefix
      `RUN_${good.slice(4)}`,
      ` ${good}`,
      `${good}\n`,
      null as unknown as string,
    ]) {
      expect(idTime(bad), String(bad)).toBeNull();
    }
  });
});

describe('isId', () => {
  it('validates shape and prefix', () => {
    const id = newId('job');
    expect(isId('job', id)).toBe(true);
    expect(isId('run', id)).toBe(false);
    expect(isId('job', id.toLowerCase())).toBe(false);
    expect(isId('job', id.replace(/.$/, 'O'))).toBe(false);
    expect(isId('job', `${id}X`)).toBe(false);
    expect(isId('job', 'job_00000000000000000000000000')).toBe(true);
    expect(isId('job', 'job_7ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toBe(true);
    expect(isId('job', 'job_80000000000000000000000000')).toBe(false);
    expect(isId('job', undefined)).toBe(false);
    expect(isId('job', 42)).toBe(false);
  });

  it('narrows unknown values to string', () => {
    const v: unknown = newId('ten');
    if (isId('ten', v)) expect(v.startsWith('ten_')).toBe(true);
    else expect.unreachable();
  });
});
