import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz, POOL_TYPES } from './timestamps';

const pgParse = pg.types.getTypeParser(1184, 'text') as (value: string) => Date | number | null;

/** the value as pg's parser reads it and as parseTimestamptz does, comparable with toEqual */
function both(text: string) {
  const read = (v: Date | number | null) => (v instanceof Date ? `date ${v.getTime()}` : String(v));
  return { pg: read(pgParse(text)), ours: read(parseTimestamptz(text)) };
}

function same(text: string) {
  const { pg: theirs, ours } = both(text);
  expect(ours, text).toBe(theirs);
}

describe('parseTimestamptz', () => {
  it('reads the shapes PostgreSQL prints as pg does', () => {
    for (const text of [
      '2026-12-07 09:05:12+00',
      '2026-12-07 09:05:12.1+00',
      '2026-12-07 09:05:12.12+00',
      '2026-12-07 09:05:12.123+00',
      '2026-12-07 09:05:12.123456+00',
      '2026-12-07 09:05:12.999999+00',
      '2026-12-07 09:05:12.000001+00',
      '2026-12-07 23:59:59.999999-03',
      '2026-12-07 09:05:12+05:30',
      '2026-12-07 09:05:12.5-09:30',
      '1883-11-18 12:00:00+00:00:20',
      '1883-11-18 11:53:28.25-00:06:32',
      '2024-02-29 00:00:00+14',
      '9999-12-31 23:59:59.999999+00',
      '1000-01-01 00:00:00+00',
    ]) {
      same(text);
    }
  });

  it('agrees with pg over many instants and offsets', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    for (let k = 0; k < 5_000; k++) {
      const at = new Date(Date.UTC(1000, 0, 1) + Math.floor(random() * (Date.UTC(9999, 0, 1) - Date.UTC(1000, 0, 1))));
      const digits = Math.floor(random() * 7);
      const fraction = digits ? `.${pad(Math.floor(random() * 10 ** digits), digits)}` : '';
      const hours = Math.floor(random() * 15);
      const minutes = [0, 0, 30, 45][Math.floor(random() * 4)] as number;
      const sign = random() < 0.5 ? '-' : '+';
      const zone = minutes ? `${sign}${pad(hours)}:${pad(minutes)}` : `${sign}${pad(hours)}`;
      const text = `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}${fraction}${zone}`;
      same(text);
    }
  });

  it("hands every other shape to pg's parser", () => {
    for (const text of [
      'infinity',
      '-infinity',
      '0099-01-01 00:00:00+00',
      '0001-01-01 00:00:00+00 BC',
      '2026-12-07 09:05:12+00 BC',
      '12026-12-07 09:05:12+00',
      '2026-12-07T09:05:12Z',
      '2026-12-07 09:05:12',
      '2026-12-07',
      '2026-1x-07 09:05:12+00',
      '2026-12-07 09:05:12+0x',
      '2026-12-07 09:05:12.+00',
    ]) {
      same(text);
    }
  });

  it('is the pools’ parser for timestamptz only', () => {
    expect(POOL_TYPES.getTypeParser(1184, 'text')).toBe(parseTimestamptz);
    expect(POOL_TYPES.getTypeParser(1114, 'text')).toBe(pg.types.getTypeParser(1114, 'text'));
    expect(POOL_TYPES.getTypeParser(23, 'text')).toBe(pg.types.getTypeParser(23, 'text'));
  });
});
