// Knee: the highest steady rate this box holds — every occurrence delivered and start-lag p99
// within a limit (1 s) over the whole step, warm-up included. Each step is a steady run of its
// own (scenarios/steady.ts: half interval-1 s jobs, half per-second cron, each second's
// occurrences due at the same instant) with a fresh database, fresh engine nodes and a fresh
// sink, so a step that fell behind leaves no backlog, dead rows or queue to the next. Rates go
// up a ladder until one fails, then bisect between the highest pass and the lowest fail
// (bench/lib/knee.ts).
import { failedText, type KneePlan, type KneeStep, kneeBounds, nextKneeRate, stepHolds } from '../lib/knee';
import type { Summary } from '../lib/stats';
import { runSteady } from './steady';

export interface KneeStepResult extends KneeStep {
  delivered: number;
  expected: number;
  missing: number;
  duplicates: number;
  lag: Summary;
  lagAfterWarmup: Summary;
  /** attempts that did not succeed, by error (SteadyResult) */
  failedAttempts: { error: string; count: number }[];
  /** wall-clock time of the step, set-up and tear-down included */
  stepSeconds: number;
}

export interface KneeResult {
  parameters: KneePlan & { seconds: number; engines: number; tenants: number };
  steps: KneeStepResult[];
  /** the highest rate that held (null: none did) */
  knee: number | null;
  /** the lowest rate that did not hold (null: every step held) */
  firstFail: number | null;
}

export async function runKnee(
  o: { seconds: number; engines: number; tenants: number; plan: KneePlan },
  log: (message: string) => void,
): Promise<KneeResult> {
  const steps: KneeStepResult[] = [];
  for (let rate = nextKneeRate(steps, o.plan); rate !== null; rate = nextKneeRate(steps, o.plan)) {
    const t0 = Date.now();
    const s = await runSteady({ perSecond: rate, seconds: o.seconds, engines: o.engines, tenants: o.tenants });
    const step: KneeStepResult = {
      rate,
      holds: stepHolds(
        { missing: s.missing, delivered: s.delivered, expected: s.expected, p99: s.lag.p99 },
        o.plan.p99LimitMs,
      ),
      delivered: s.delivered,
      expected: s.expected,
      missing: s.missing,
      duplicates: s.duplicates,
      lag: s.lag,
      lagAfterWarmup: s.lagAfterWarmup,
      failedAttempts: s.failedAttempts,
      stepSeconds: Math.round((Date.now() - t0) / 1000),
    };
    steps.push(step);
    log(
      `knee: ${rate}/s for ${o.seconds} s: ${step.delivered}/${step.expected} delivered, p50/p99 ${s.lag.p50}/${s.lag.p99} ms (after 10 s ${s.lagAfterWarmup.p50}/${s.lagAfterWarmup.p99}) — ${step.holds ? 'holds' : 'does not hold'}${s.failedAttempts.length ? `; attempts failed: ${failedText(s.failedAttempts)}` : ''}`,
    );
  }
  const { pass, fail } = kneeBounds(steps);
  return {
    parameters: { ...o.plan, seconds: o.seconds, engines: o.engines, tenants: o.tenants },
    steps,
    knee: pass,
    firstFail: fail,
  };
}
