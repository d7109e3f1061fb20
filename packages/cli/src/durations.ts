// Parsing and printing of spans of time: `--every 5m`, `--timeout 30s`, `--at +10m`, and the
// "in 4h 12m" / "3d ago" shown in tables. Pure functions; `now` is always passed in.

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/**
 * Seconds from "300", "90s", "5m", "1h30m", "2d". Whole units only: a fractional second
 * cannot be scheduled, and "1.5h" is better written "1h30m" than guessed at.
 */
export function parseDuration(text: string): number {
  const s = text.trim().toLowerCase();
  if (/^\d+$/.test(s)) return Number(s);
  const part = /(\d+)\s*([smhdw])/gy;
  let total = 0;
  let consumed = 0;
  for (let m = part.exec(s); m; m = part.exec(s)) {
    total += Number(m[1]) * (UNIT_SECONDS[m[2] ?? 's'] ?? 1);
    consumed = part.lastIndex;
  }
  if (!s || consumed !== s.length) {
    throw new Error(`'${text}' is not a duration: use seconds (300) or units s, m, h, d, w (5m, 1h30m)`);
  }
  return total;
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** `--at`: an ISO 8601 instant with a zone, `now`, or `+<duration>` from now; answers UTC ISO. */
export function parseAt(text: string, now: Date): string {
  const s = text.trim();
  if (s.toLowerCase() === 'now') return now.toISOString();
  if (s.startsWith('+')) return new Date(now.getTime() + parseDuration(s.slice(1)) * 1000).toISOString();
  const date = new Date(s);
  if (ISO_WITH_ZONE.test(s) && !Number.isNaN(date.getTime())) return date.toISOString();
  if (!Number.isNaN(date.getTime()) && /^\d{4}-\d{2}-\d{2}/.test(s)) {
    throw new Error(`'${text}' has no time zone: add Z or an offset, e.g. 2026-12-01T07:00:00Z`);
  }
  throw new Error(`'${text}' is not a time: use ISO 8601 with a zone (2026-12-01T07:00:00Z) or +<duration> (+5m)`);
}

/** 5400 → "1h30m"; 0 → "0s". */
export function formatSeconds(total: number): string {
  if (total <= 0) return '0s';
  let rest = Math.round(total);
  let out = '';
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out;
}

/** An attempt's duration: "120ms", "4.2s", "2m 5s". */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${s % 60}s`;
}

/** Largest unit, plus the next one while the first is small (so "1h 59m", not a misleading "1h"). */
function span(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return h < 10 && m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return d < 10 && h % 24 ? `${d}d ${h % 24}h` : `${d}d`;
}

/** "in 5m", "3h ago", "now"; a date when further than 60 days away. */
export function formatRelative(iso: string | null | undefined, now: Date): string {
  if (!iso) return '-';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return iso;
  const diff = t - now.getTime();
  if (Math.abs(diff) < 1000) return 'now';
  if (Math.abs(diff) > 60 * 86_400_000) return iso.slice(0, 10);
  return diff > 0 ? `in ${span(diff)}` : `${span(-diff)} ago`;
}

/** Absolute and relative together, for detail views: "2026-12-01T07:00:00.000Z (in 3d 2h)". */
export function formatInstant(iso: string | null | undefined, now: Date): string {
  if (!iso) return '-';
  return `${iso} (${formatRelative(iso, now)})`;
}
