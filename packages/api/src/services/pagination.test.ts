import { describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { canonicalJson } from './idempotency';
import { decodeCursor, decodeNameCursor, encodeCursor, encodeNameCursor, pageLimit, toPage } from './pagination';

const key = { t: '2026-11-29T10:00:00.123456Z', id: 'job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T' };

describe('cursors', () => {
  it('round-trip, and only for the list that issued them', () => {
    const c = encodeCursor('jobs', key);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('jobs', c)).toEqual(key);
    expect(() => decodeCursor('runs', c)).toThrow(AppError);
    expect(decodeCursor('jobs', undefined)).toBeNull();
  });

  it.each([
    '',
    '!!',
    'e30',
    encodeCursor('jobs', { t: '2026-11-29', id: key.id }),
    encodeCursor('jobs', { t: key.t, id: "x' OR 1=1" }),
  ])('refuses %j', (c) => {
    expect(() => decodeCursor('jobs', c)).toThrow(expect.objectContaining({ code: 'validation' }));
  });

  it('toPage keeps `limit` rows and points the cursor at the last one', () => {
    const rows = [1, 2, 3].map((n) => ({ n, t: key.t, id: `${key.id.slice(0, -1)}${n}` }));
    const page = toPage(
      'jobs',
      rows,
      2,
      (r) => ({ t: r.t, id: r.id }),
      (r) => r.n,
    );
    expect(page.data).toEqual([1, 2]);
    expect(decodeCursor('jobs', page.nextCursor as string)?.id).toBe(rows[1]?.id);
    expect(
      toPage(
        'jobs',
        rows,
        3,
        (r) => r,
        (r) => r.n,
      ).nextCursor,
    ).toBeNull();
  });

  it('pageLimit defaults to 50 and refuses out-of-range values', () => {
    expect(pageLimit(undefined)).toBe(50);
    expect(pageLimit(500)).toBe(500);
    for (const n of [0, 501, 1.5, Number.NaN]) expect(() => pageLimit(n)).toThrow(AppError);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
    expect(canonicalJson({ at: new Date('2026-01-01T00:00:00Z') })).toBe('{"at":"2026-01-01T00:00:00.000Z"}');
  });
});

describe('name cursors', () => {
  it('round-trip the last name of a page', () => {
    expect(decodeNameCursor('queues', encodeNameCursor('queues', 'q-b.2'))).toBe('q-b.2');
    expect(decodeNameCursor('queues', undefined)).toBeNull();
  });

  it('refuse a cursor of another list and a malformed one', () => {
    const other = encodeCursor('jobs', key);
    const otherNames = encodeNameCursor('channels', 'a');
    const notName = Buffer.from(JSON.stringify(['queues', 7])).toString('base64url');
    for (const cursor of [other, otherNames, notName, 'not*base64', Buffer.from('[').toString('base64url')]) {
      expect(() => decodeNameCursor('queues', cursor)).toThrow(AppError);
    }
  });
});
