// Percentiles and time-bucketed trends for latency samples.
export interface Summary {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

export function summarize(samples: number[]): Summary {
  if (!samples.length) return { count: 0, p50: null, p95: null, p99: null, max: null, mean: null };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? null;
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted.at(-1) ?? null,
    mean: Math.round((sum / sorted.length) * 10) / 10,
  };
}

/** p50/p99 per bucket of `bucketMs`, keyed by sample time relative to `start`. */
export function trend(points: { at: number; value: number }[], start: number, bucketMs: number) {
  const buckets = new Map<number, number[]>();
  for (const p of points) {
    const b = Math.floor((p.at - start) / bucketMs);
    const list = buckets.get(b);
    if (list) list.push(p.value);
    else buckets.set(b, [p.value]);
  }
  return [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, values]) => ({ fromSeconds: (b * bucketMs) / 1000, ...summarize(values) }));
}

export const fmt = (ms: number | null | undefined, unit = 'ms') =>
  ms === null || ms === undefined ? '-' : `${Math.round(ms)} ${unit}`;
