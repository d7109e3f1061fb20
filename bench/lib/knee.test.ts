import { describe, expect, it } from 'vitest';
import { failedText, type KneePlan, type KneeStep, kneeBounds, nextKneeRate, stepHolds } from './knee';

const plan: KneePlan = { ladderStep: 1000, resolution: 250, maxSteps: 6, p99LimitMs: 1000 };

/** Runs the search against a box that holds every rate up to `capacity`. */
function search(capacity: number, p: KneePlan = plan): KneeStep[] {
  const steps: KneeStep[] = [];
  for (let rate = nextKneeRate(steps, p); rate !== null; rate = nextKneeRate(steps, p))
    steps.push({ rate, holds: rate <= capacity });
  return steps;
}

describe('knee search', () => {
  it('climbs the ladder to the first failure, then bisects to the resolution', () => {
    const steps = search(3600);
    expect(steps.map((s) => s.rate)).toEqual([1000, 2000, 3000, 4000, 3500, 3750]);
    expect(kneeBounds(steps)).toEqual({ pass: 3500, fail: 3750 });
  });

  it('stops once the gap is within the resolution, before using every step', () => {
    const steps = search(3600, { ...plan, resolution: 500, maxSteps: 10 });
    expect(steps.map((s) => s.rate)).toEqual([1000, 2000, 3000, 4000, 3500]);
  });

  it('bisects down from the first rung when even it fails', () => {
    const steps = search(300);
    expect(steps.map((s) => s.rate)).toEqual([1000, 500, 250]);
    expect(kneeBounds(steps)).toEqual({ pass: 250, fail: 500 });
  });

  it('reports no rate held when every step fails', () => {
    const steps = search(0);
    expect(steps.map((s) => s.rate)).toEqual([1000, 500, 250]);
    expect(kneeBounds(steps)).toEqual({ pass: null, fail: 250 });
  });

  it('keeps climbing while steps hold, up to the step budget', () => {
    const steps = search(Number.POSITIVE_INFINITY, { ...plan, maxSteps: 4 });
    expect(steps.map((s) => s.rate)).toEqual([1000, 2000, 3000, 4000]);
    expect(kneeBounds(steps)).toEqual({ pass: 4000, fail: null });
  });

  it('bisects on multiples of the resolution, never trying a rate twice', () => {
    const steps = search(1100, { ...plan, resolution: 400, maxSteps: 10 });
    const rates = steps.map((s) => s.rate);
    expect(new Set(rates).size).toBe(rates.length);
    expect(rates).toEqual([1000, 2000, 1600, 1200]);
  });
});

describe('a step holds', () => {
  const ok = { missing: 0, delivered: 120_000, expected: 120_000, p99: 1000 };
  it('with every occurrence delivered and p99 at the limit', () => {
    expect(stepHolds(ok, 1000)).toBe(true);
  });
  it('not with p99 over the limit, an occurrence missing or late past the window, or no samples', () => {
    expect(stepHolds({ ...ok, p99: 1001 }, 1000)).toBe(false);
    expect(stepHolds({ ...ok, missing: 1, delivered: 119_999 }, 1000)).toBe(false);
    expect(stepHolds({ ...ok, delivered: 119_999 }, 1000)).toBe(false);
    expect(stepHolds({ ...ok, p99: null }, 1000)).toBe(false);
  });
});

describe('failed attempts in the report', () => {
  it('lists each error with its count, in the order given', () => {
    expect(
      failedText([
        { error: 'connect ECONNREFUSED 127.0.0.1:9', count: 12 },
        { error: 'failed', count: 1 },
      ]),
    ).toBe('connect ECONNREFUSED 127.0.0.1:9 ×12; failed ×1');
    expect(failedText([])).toBe('');
  });
});
