// Time display: relative ("in 3 min", "12 s ago") and absolute, in the viewer's zone or a
// job's. Pages render on the client, so the viewer's zone is the browser's.
import { useEffect, useState } from 'react';

export function viewerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function useNow(intervalMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  return now;
}

const UNITS: Array<[number, string]> = [
  [365 * 24 * 3600_000, 'y'],
  [30 * 24 * 3600_000, 'mo'],
  [24 * 3600_000, 'd'],
  [3600_000, 'h'],
  [60_000, 'min'],
  [1_000, 's'],
];

export function relative(iso: string | null | undefined, now: number): string {
  if (!iso) return '—';
  const diff = Date.parse(iso) - now;
  const abs = Math.abs(diff);
  if (abs < 1_000) return 'now';
  for (const [size, unit] of UNITS) {
    if (abs >= size || unit === 's') {
      const n = Math.floor(abs / size);
      return diff > 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
    }
  }
  return '—';
}

export function formatInZone(iso: string | null | undefined, timeZone: string, withZone = true): string {
  if (!iso) return '—';
  try {
    return new Intl.DateTimeFormat(undefined, {
      timeZone,
      year: 'numeric',
      month: 'short',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hour12: false,
      ...(withZone ? { timeZoneName: 'short' } : {}),
    }).format(new Date(iso));
  } catch {
    return iso;
  }
}

/** Shorter, for tables: no year when it is this year's, minutes and seconds always. */
export function formatCompact(iso: string | null | undefined, timeZone: string = viewerZone()): string {
  if (!iso) return '—';
  const d = new Date(iso);
  const sameYear = d.getUTCFullYear() === new Date().getUTCFullYear();
  try {
    return new Intl.DateTimeFormat(undefined, {
      timeZone,
      ...(sameYear ? {} : { year: 'numeric' }),
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hour12: false,
      timeZoneName: 'short',
    }).format(d);
  } catch {
    return iso;
  }
}

export function formatLocal(iso: string | null | undefined): string {
  return formatInZone(iso, viewerZone());
}

export function formatTimeOnly(iso: string, timeZone: string = viewerZone()): string {
  return new Intl.DateTimeFormat(undefined, {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
  }).format(new Date(iso));
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  if (ms < 3600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`;
  return `${(ms / 3600_000).toFixed(1)} h`;
}

export function durationBetween(a: string | null, b: string | null): number | null {
  if (!a || !b) return null;
  return Math.max(0, Date.parse(b) - Date.parse(a));
}
