// The knee search's arithmetic (bench/scenarios/knee.ts runs it): which steady rate to try
// next, and whether a step held. Pure functions, unit-tested in knee.test.ts.

export interface KneePlan {
  /** the first rate tried, and the ladder's step: rate, 2 × rate, 3 × rate, ... until one fails */
  ladderStep: number;
  /** bisecting stops once the gap between the highest pass and the lowest fail is this or less */
  resolution: number;
  /** at most this many steps in all (ladder + bisection) */
  maxSteps: number;
  /** a step holds when every occurrence arrived and the start lag p99 is at most this */
  p99LimitMs: number;
}

export interface KneeStep {
  rate: number;
  holds: boolean;
}

/** Whether a steady step held: every expected occurrence delivered, p99 start lag within the limit. */
export function stepHolds(
  s: { missing: number; delivered: number; expected: number; p99: number | null },
  p99LimitMs: number,
): boolean {
  return s.missing === 0 && s.delivered >= s.expected && s.p99 !== null && s.p99 <= p99LimitMs;
}

/** The highest rate that held, and the lowest that did not (null: none yet). */
export function kneeBounds(steps: KneeStep[]): { pass: number | null; fail: number | null } {
  let pass: number | null = null;
  let fail: number | null = null;
  for (const s of steps) {
    if (s.holds) pass = Math.max(pass ?? 0, s.rate);
    else fail = Math.min(fail ?? Number.POSITIVE_INFINITY, s.rate);
  }
  return { pass, fail };
}

/**
 * The next rate to try, or null when the search is over. Up the ladder (ladderStep, 2 ×, 3 × ...)
 * while every step holds; after the first failure, bisect between the highest pass (0 if none)
 * and the lowest fail, rounded to the resolution, until the gap is within the resolution or the
 * steps are used up.
 */
export function nextKneeRate(steps: KneeStep[], plan: KneePlan): number | null {
  if (steps.length >= plan.maxSteps) return null;
  const { pass, fail } = kneeBounds(steps);
  if (fail === null) return (pass ?? 0) + plan.ladderStep;
  const low = pass !== null && pass < fail ? pass : 0;
  if (fail - low <= plan.resolution) return null;
  // The midpoint on a multiple of the resolution: rounding moves it by at most half the
  // resolution, and the gap is more than the resolution, so it stays strictly between the bounds.
  const rate = Math.round((low + fail) / 2 / plan.resolution) * plan.resolution;
  if (rate <= low || rate >= fail || steps.some((s) => s.rate === rate)) return null;
  return rate;
}

/** attempts that did not succeed, by error, as "<error> ×n; ..." (most frequent first) */
export function failedText(failed: { error: string; count: number }[]): string {
  return failed.map((f) => `${f.error} ×${f.count}`).join('; ');
}
