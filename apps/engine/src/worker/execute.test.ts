// executeAttempt's order of work for a run claimed ahead of its time: the start check is sent,
// the handler prepares what it can while it is answered, and the attempt starts with what was
// prepared, when due. A run claimed when due, or one whose prepare fails, starts as before.
import type { ClaimedRun } from '@belfry/db';
import { createHandlerRegistry, type Handler, type HandlerContext } from '@belfry/handlers';
import { describe, expect, it } from 'vitest';
import type { DbClock } from '../db-clock';
import { executionOf } from '../../test/support';
import { type ExecuteDeps, executeAttempt } from './execute';
import type { SigningSecrets } from './secrets';

const clock = { now: () => Date.now(), uncertainty: 0 } as unknown as DbClock;
const secrets = {
  get: async () => ['whsec_test'],
  revealTarget: (run: ClaimedRun) => run.target,
} as unknown as SigningSecrets;

function runDueIn(ms: number, claimedAhead = true): ClaimedRun {
  const now = Date.now();
  return {
    id: 'run_1',
    scheduled_time: new Date(now + ms),
    due_at: new Date(now + ms),
    db_now: new Date(claimedAhead ? now : now + ms),
    tenant_id: 'ten_1',
    job_id: 'job_1',
    attempt: 1,
    trigger: 'schedule',
    priority: 'normal',
    next_attempt_at: null,
    target: { type: 'http', url: 'http://127.0.0.1:9/' },
    payload: { n: 1 },
    timeout_seconds: 5,
    retry_max_attempts: 1,
    retry_initial_delay_seconds: 1,
    retry_max_delay_seconds: 1,
  };
}

const execution = (run: ClaimedRun) => executionOf(run);

/** A handler that notes what it was asked when, and a gate that confirms `answer` when due. */
function recording(options: { answer?: boolean; prepare?: 'token' | 'throws' | 'none' } = {}) {
  const seen: {
    checkAt?: number;
    prepared?: { at: number; startsAt: Date; payload: unknown };
    executed?: { at: number; prepared: unknown };
  } = {};
  const handler: Handler = {
    type: 'http',
    execute: async (_target, _payload, ctx: HandlerContext) => {
      seen.executed = { at: Date.now(), prepared: ctx.prepared };
      return { ok: true, durationMs: 0 };
    },
  };
  if (options.prepare !== 'none')
    handler.prepare = (_target, payload, _ctx, startsAt) => {
      seen.prepared = { at: Date.now(), startsAt, payload };
      if (options.prepare === 'throws') throw new Error('prepare failed');
      return 'token';
    };
  const deps: ExecuteDeps = {
    handlers: createHandlerRegistry([handler]),
    secrets,
    clock,
    gate: {
      confirm: async (run) => {
        seen.checkAt = Date.now();
        // + 1, as the real gate waits (start-gate.ts): a timer may fire up to a millisecond
        // before Date.now() reaches its end, and a run must never start before it is due
        await new Promise((r) => setTimeout(r, Math.max(0, run.due_at.getTime() - Date.now()) + 1));
        return options.answer ?? true;
      },
    },
  };
  return { deps, seen };
}

describe('executeAttempt, a run claimed ahead', () => {
  it('is prepared while its start is checked, and starts with what was prepared when due', async () => {
    const run = runDueIn(250);
    const { deps, seen } = recording();
    expect(await executeAttempt(deps, execution(run))).toMatchObject({ ok: true });
    expect(seen.prepared).toMatchObject({ startsAt: run.due_at, payload: { n: 1 } });
    expect(seen.prepared!.at).toBeGreaterThanOrEqual(seen.checkAt!);
    expect(seen.prepared!.at).toBeLessThan(run.due_at.getTime());
    expect(seen.executed).toMatchObject({ prepared: 'token' });
    expect(seen.executed!.at).toBeGreaterThanOrEqual(run.due_at.getTime());
  });

  it('is not started when the check says it was cancelled, though it was prepared', async () => {
    const run = runDueIn(150);
    const { deps, seen } = recording({ answer: false });
    const e = execution(run);
    expect(await executeAttempt(deps, e)).toMatchObject({ ok: false, error: 'not started: stopped before it was due' });
    expect(e.reason).toBe('cancelled');
    expect(seen.prepared).toBeDefined();
    expect(seen.executed).toBeUndefined();
  });

  it('is not started, and is released, when its start cannot be confirmed (the database away)', async () => {
    const { deps, seen } = recording();
    deps.gate = {
      confirm: async () => {
        throw new Error('Connection terminated unexpectedly');
      },
    };
    const e = execution(runDueIn(150));
    expect(await executeAttempt(deps, e)).toMatchObject({
      ok: false,
      error: 'not started: could not confirm the run before starting it (Connection terminated unexpectedly)',
    });
    expect(e.reason).toBe('unconfirmed');
    expect(seen.executed).toBeUndefined();
  });

  it('starts without a prepared request when preparing failed or the handler has none', async () => {
    for (const prepare of ['throws', 'none'] as const) {
      const { deps, seen } = recording({ prepare });
      expect(await executeAttempt(deps, execution(runDueIn(150)))).toMatchObject({ ok: true });
      expect(seen.executed).toBeDefined();
      expect(seen.executed!.prepared).toBeUndefined();
    }
  });
});

describe('executeAttempt, a run claimed when due', () => {
  it('is neither checked nor prepared: it starts at once', async () => {
    const { deps, seen } = recording();
    expect(await executeAttempt(deps, execution(runDueIn(0, false)))).toMatchObject({ ok: true });
    expect(seen.checkAt).toBeUndefined();
    expect(seen.prepared).toBeUndefined();
    expect(seen.executed!.prepared).toBeUndefined();
  });
});

describe('executeAttempt, runs claimed ahead waking together', () => {
  it("each run's check is sent before it is prepared", async () => {
    // A gate that, like StartGate, queues the checks and sends what is queued from a setImmediate.
    const events: string[] = [];
    let queue: string[] = [];
    const gate = {
      confirm: (run: ClaimedRun) =>
        new Promise<boolean>((resolve) => {
          if (!queue.length)
            setImmediate(() => {
              for (const id of queue) events.push(`sent ${id}`);
              queue = [];
            });
          queue.push(run.id);
          setTimeout(resolve, Math.max(0, run.due_at.getTime() - Date.now()), true);
        }),
    };
    const handler: Handler = {
      type: 'http',
      prepare: (_target, _payload, ctx) => {
        events.push(`prepared ${ctx.runId}`);
        return 'token';
      },
      execute: async () => ({ ok: true, durationMs: 0 }),
    };
    const deps: ExecuteDeps = { handlers: createHandlerRegistry([handler]), secrets, clock, gate };
    const due = Date.now() + 150;
    const runs = [0, 1, 2, 3].map((i) => ({
      ...runDueIn(0),
      id: `run_${i}`,
      due_at: new Date(due),
      db_now: new Date(),
    }));
    const outcomes = await Promise.all(runs.map((run) => executeAttempt(deps, execution(run))));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    for (const { id } of runs) {
      expect(events).toContain(`sent ${id}`);
      expect(events.indexOf(`sent ${id}`), id).toBeLessThan(events.indexOf(`prepared ${id}`));
    }
  });
});
