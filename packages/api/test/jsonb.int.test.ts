// asStoredJsonb answers what PostgreSQL's jsonb hands back for a value (job creation answers
// with it instead of reading its rows back): held against a real round trip.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asStoredJsonb } from '../src/sql/jsonb';
import { createHarness, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const values: unknown[] = [
  null,
  0,
  -0,
  1e21,
  -1.5e-7,
  5e-324,
  Number.MAX_VALUE,
  'text',
  true,
  [],
  {},
  [1, 'two', null, [3, { b: 1, a: 2 }]],
  { zebra: 1, a: 2, ab: 3, b: 4, '10': 5, '9': 6, é: 7, e: 8, '': 9 },
  { 'x\ty': 1, 'x\u0001': 2, '\u007f': 3, '\u{1F600}': 4, '\uFFFD': 5, '\u00e9\u00e9': 6, '\u4e2d': 7 },
  { nested: { deeper: { deepest: [{ z: 1, y: 2 }] } }, a: undefined, f: () => 1 },
  [undefined, () => 1, Number.NaN, Number.POSITIVE_INFINITY],
  { when: new Date('2026-12-01T02:03:04.005Z'), ['__proto__']: { p: 1 } },
];

describe('asStoredJsonb', () => {
  it('answers each value as a jsonb column reads it back', async () => {
    for (const value of values) {
      const { rows } = await h.db.pool.query<{ v: unknown }>('SELECT $1::jsonb AS v', [JSON.stringify(value)]);
      expect(JSON.stringify(asStoredJsonb(value)), JSON.stringify(value)).toBe(JSON.stringify(rows[0]?.v));
    }
  });
});
