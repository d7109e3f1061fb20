import { describe, expect, it } from 'vitest';
import { civilFromDays, daysFromCivil, daysInMonth, formatOffset, weekdayFromDays } from './civil';
import { getZone, validateTimezone } from './zone';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offset in minutes straight from Intl, independent of zone.ts. */
function intlOffsetMinutes(tz: string, ms: number): number {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(tz, f);
  }
  const parts = f.formatToParts(ms);
  const v = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return (Date.UTC(v('year'), v('month') - 1, v('day'), v('hour'), v('minute')) - ms) / 60_000;
}

/** Brute force: every change of offset in 2026 at minute precision, by scanning with Intl. */
function scanTransitions(tz: string): { at: string; before: number; after: number }[] {
  const out: { at: string; before: number; after: number }[] = [];
  const step = 3_600_000;
  let prev = intlOffsetMinutes(tz, Date.UTC(2026, 0, 1));
  for (let t = Date.UTC(2026, 0, 1) + step; t <= Date.UTC(2027, 0, 1); t += step) {
    const off = intlOffsetMinutes(tz, t);
    if (off !== prev) {
      let m = t - step;
      while (intlOffsetMinutes(tz, m) === prev) m += 60_000;
      out.push({ at: new Date(m).toISOString(), before: prev, after: off });
      prev = off;
    }
  }
  return out;
}

describe('civil calendar arithmetic', () => {
  it('round-trips days and agrees with Date for 1900-2400', () => {
    const bad: number[] = [];
    for (let d = daysFromCivil(1900, 1, 1); d < daysFromCivil(2400, 1, 1); d += 3) {
      const c = civilFromDays(d);
      const date = new Date(d * 86_400_000);
      const ok =
        c.year === date.getUTCFullYear() &&
        c.month === date.getUTCMonth() + 1 &&
        c.day === date.getUTCDate() &&
        daysFromCivil(c.year, c.month, c.day) === d &&
        weekdayFromDays(d) === date.getUTCDay();
      if (!ok) bad.push(d);
    }
    expect(bad).toEqual([]);
  });

  it('knows leap years', () => {
    expect([1900, 2000, 2024, 2026, 2100].map((y) => daysInMonth(y, 2))).toEqual([28, 29, 29, 28, 28]);
  });

  it('formats offsets', () => {
    expect([0, 3600, -16_200, 37_800, 1172].map(formatOffset)).toEqual([
      'UTC+00:00',
      'UTC+01:00',
      'UTC-04:30',
      'UTC+10:30',
      'UTC+00:19:32',
    ]);
  });
});

describe('zone transitions', () => {
  it('verifies the 2026 dates the DST tests rely on, with Intl alone', () => {
    expect(scanTransitions('Europe/Berlin')).toEqual([
      { at: '2026-03-29T01:00:00.000Z', before: 60, after: 120 },
      { at: '2026-10-25T01:00:00.000Z', before: 120, after: 60 },
    ]);
    expect(scanTransitions('America/New_York')).toEqual([
      { at: '2026-03-08T07:00:00.000Z', before: -300, after: -240 },
      { at: '2026-11-01T06:00:00.000Z', before: -240, after: -300 },
    ]);
    expect(scanTransitions('Australia/Lord_Howe')).toEqual([
      { at: '2026-04-04T15:00:00.000Z', before: 660, after: 630 },
      { at: '2026-10-03T15:30:00.000Z', before: 630, after: 660 },
    ]);
    // Santiago: 2026-04-05 00:00 -03 becomes 2026-04-04 23:00 -04; 2026-09-06 00:00 -04
    // becomes 01:00 -03.
    expect(scanTransitions('America/Santiago')).toEqual([
      { at: '2026-04-05T03:00:00.000Z', before: -180, after: -240 },
      { at: '2026-09-06T04:00:00.000Z', before: -240, after: -180 },
    ]);
    expect(scanTransitions('Asia/Kolkata')).toEqual([]);
    expect(scanTransitions('UTC')).toEqual([]);
  });

  it.each([
    'Europe/Berlin',
    'America/New_York',
    'Australia/Lord_Howe',
    'America/Santiago',
    'Asia/Kolkata',
    'UTC',
    'Africa/Casablanca',
    'Pacific/Chatham',
    'America/St_Johns',
  ])('finds exactly the transitions Intl has in %s, to the second', (tz) => {
    const zone = getZone(tz);
    const start = Date.UTC(2026, 0, 1) / 1000;
    const found = zone
      .transitionsBetween(start, Date.UTC(2027, 0, 1) / 1000)
      .map((t) => ({ at: new Date(t.at * 1000).toISOString(), before: t.before / 60, after: t.after / 60 }));
    expect(found).toEqual(scanTransitions(tz));
  });

  it('gives the offset of every instant around a change', () => {
    const zone = getZone('Australia/Lord_Howe');
    for (let t = Date.UTC(2026, 3, 4, 12) / 1000; t < Date.UTC(2026, 3, 4, 18) / 1000; t += 300) {
      expect(zone.offsetAt(t) / 60).toBe(intlOffsetMinutes('Australia/Lord_Howe', t * 1000));
    }
  });

  it('reports segments bounded by transitions and year ends', () => {
    const zone = getZone('Europe/Berlin');
    const seg = zone.segmentAt(Date.UTC(2026, 5, 1) / 1000);
    expect(new Date(seg.start * 1000).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(new Date(seg.end * 1000).toISOString()).toBe('2026-10-25T01:00:00.000Z');
    expect(seg.offset).toBe(7200);
    const winter = zone.segmentAt(Date.UTC(2026, 11, 31) / 1000);
    expect(new Date(winter.end * 1000).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(winter.transition?.after).toBe(3600);
  });
});

describe('validateTimezone', () => {
  it('accepts IANA names, UTC and aliases the runtime knows', () => {
    for (const tz of [
      'UTC',
      'Etc/UTC',
      'Europe/Berlin',
      'America/Argentina/Buenos_Aires',
      'Asia/Calcutta',
      'US/Eastern',
      'Etc/GMT+5',
    ]) {
      expect(validateTimezone(tz)).toBeNull();
    }
  });

  it.each([
    ['Mars/Base', "unknown time zone 'Mars/Base'"],
    ['', 'time zone is empty'],
    ['   ', 'time zone is empty'],
    [' UTC', "time zone ' UTC' has leading or trailing spaces"],
    [
      'europe/berlin',
      "unknown time zone 'europe/berlin' (time zone names are case-sensitive; did you mean 'Europe/Berlin'?)",
    ],
    ['utc', "unknown time zone 'utc' (time zone names are case-sensitive; did you mean 'UTC'?)"],
    ['+01:00', "time zone must be an IANA name such as 'Europe/Berlin', not a UTC offset ('+01:00')"],
    ['UTC+2', "time zone must be an IANA name such as 'Europe/Berlin', not a UTC offset ('UTC+2')"],
    ['Europe/Berlinn', "unknown time zone 'Europe/Berlinn'"],
    ['Berlin', "unknown time zone 'Berlin'"],
  ])('rejects %j', (tz, message) => {
    expect(validateTimezone(tz)).toBe(message);
    expect(() => getZone(tz)).toThrow(RangeError);
  });

  it('rejects non-strings', () => {
    expect(validateTimezone(42 as unknown as string)).toBe('time zone must be a string');
  });
});
