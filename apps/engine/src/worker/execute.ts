// Executes one claimed attempt: waits for its scheduled time (runs are claimed a little early;
// a target is never called before its time), makes sure a run claimed ahead was not cancelled
// meanwhile (the start gate), then hands the target to its kind's handler. A
// run whose kind belongs to another lane than the one it was fetched from (its job's target
// changed kind after the run was queued) is not executed but released to its own lane, so each
// lane's slots run only that lane's kinds. Never throws.
import type { WorkerLane } from '@belfry/core';
import { type ClaimedRun, START_COMMIT_MS } from '@belfry/db';
import { type HandlerContext, type HandlerOutcome, type HandlerRegistry, laneOf } from '@belfry/handlers';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DbClock } from '../db-clock';
import type { Log } from '../logger';
import type { StopReason } from './outcome';
import type { SigningSecrets } from './secrets';
import type { StartGate } from './start-gate';

/** One attempt in flight on this node. */
export interface Execution {
  run: ClaimedRun;
  lane: WorkerLane;
  abort: AbortController;
  /** set when this worker stopped the attempt itself */
  reason: StopReason | null;
  /** the handler returned; its outcome is being recorded (no more heartbeats needed) */
  finished: boolean;
  /** adopted from a node that died mid-attempt (same attempt): the handler picks up what it left */
  resumed?: boolean;
  done: Promise<void>;
  /** the run's child logger, once a line about it was written */
  log?: Log;
  /** claimed ahead of its due time, and holding no execution slot yet (lane-slots.ts) */
  waiting?: boolean;
}

export interface ExecuteDeps {
  handlers: HandlerRegistry;
  secrets: SigningSecrets;
  clock: DbClock;
  /** the last check before a run claimed ahead of its time starts (pause, delete, cancel) */
  gate?: Pick<StartGate, 'confirm'>;
  /** told how late an attempt starts (ms after it was due) */
  onStart?: (lagMs: number, tenantId: string) => void;
  /**
   * A run claimed ahead is due and about to call its target: it takes an execution slot, now or
   * when one frees; false when the run was stopped meanwhile.
   */
  admit?: (execution: Execution) => boolean | Promise<boolean>;
}

const notRun = (failure: 'connection' | 'invalid', error: string): HandlerOutcome => ({
  ok: false,
  failure,
  error,
  durationMs: 0,
});

export async function executeAttempt(deps: ExecuteDeps, execution: Execution): Promise<HandlerOutcome> {
  const { run } = execution;
  const lane = laneOf(run.target.type);
  if (lane !== execution.lane) {
    execution.reason = 'rerouted';
    return notRun('connection', `rerouted: the target is now ${run.target.type}, which runs in the ${lane} lane`);
  }
  // Asked for now rather than when due: a run claimed ahead then finds its tenant's signing
  // secrets read by the time it starts. Awaited (and a failed read reported) where the target is
  // called; the catch only keeps a failure meanwhile from counting as unhandled.
  const signingSecrets = deps.secrets.get(run.tenant_id);
  signingSecrets.catch(() => undefined);
  // Due = the scheduled time plus the job's jitter offset; the target still sees the nominal
  // scheduled time (belfry-scheduled-time). A run claimed ahead is checked at its commit point
  // (START_COMMIT_MS before it is due), and the gate then waits until due on the database clock.
  // Most runs are claimed when due: no timer, no extra await.
  const gated = Boolean(deps.gate) && run.db_now < run.due_at;
  const wakeAt = run.due_at.getTime() - (gated ? START_COMMIT_MS : 0);
  const wait = wakeAt - deps.clock.now() + deps.clock.uncertainty + 1;
  let started =
    wait > 0 && !execution.abort.signal.aborted
      ? await sleepUntilDue(wait, execution.abort.signal)
      : !execution.abort.signal.aborted;
  let ahead: Ahead | undefined;
  if (started && gated && deps.gate) {
    // The last check goes out first; while it is answered (and the rest of the wait runs), the
    // handler does what it can before the due instant (an HTTP request built and signed), so
    // that a burst of runs due together only has their requests left to send when due.
    const confirming = deps.gate.confirm(run, execution.abort.signal);
    confirming.catch(() => undefined); // awaited below; meanwhile a rejection is not unhandled
    // The gate sends the checks of the runs that woke together from a setImmediate: yield to it
    // first, or the whole burst would be prepared before its check went out.
    await new Promise((resolve) => setImmediate(resolve));
    ahead = await prepareAhead(deps, execution, signingSecrets);
    try {
      started = await confirming;
      // Cancelled or taken back while it waited: its outcome will be fenced out.
      if (!started) execution.reason ??= 'cancelled';
    } catch (err) {
      // Nobody could say whether the run is still ours, so its target is not called; the run is
      // released (outcome.ts), to be claimed again once the database answers, not failed.
      execution.reason ??= 'unconfirmed';
      return notRun(
        'connection',
        `not started: could not confirm the run before starting it (${(err as Error).message})`,
      );
    }
  }
  if (started && deps.admit) {
    const admitted = deps.admit(execution);
    started = admitted === true || (admitted !== false && (await admitted));
  }
  const due = run.attempt > 1 && run.next_attempt_at ? run.next_attempt_at : run.due_at;
  if (!execution.resumed) deps.onStart?.(deps.clock.now() - due.getTime(), run.tenant_id);
  if (!started) return notRun('connection', 'not started: stopped before it was due');
  const handler = deps.handlers.get(run.target.type);
  if (!handler) return notRun('invalid', `no handler for target type '${run.target.type}'`);
  let target: ClaimedRun['target'];
  try {
    target = ahead?.target ?? deps.secrets.revealTarget(run);
  } catch (err) {
    // A key missing from the keyring (or a row moved between tenants): nothing is sent.
    return notRun('invalid', `the target's secrets cannot be opened: ${(err as Error).message}`);
  }
  try {
    const ctx = ahead?.ctx ?? contextOf(deps, execution, await signingSecrets);
    if (ahead?.prepared !== undefined) ctx.prepared = ahead.prepared;
    return await handler.execute(target, run.payload, ctx);
  } catch (err) {
    // Handlers never throw by contract; a bug in one is a failed attempt, not a lost run.
    return notRun('connection', `internal error: ${(err as Error)?.message ?? String(err)}`);
  }
}

function contextOf(deps: ExecuteDeps, execution: Execution, signingSecrets: string[]): HandlerContext {
  const { run } = execution;
  return {
    runId: run.id,
    jobId: run.job_id,
    tenantId: run.tenant_id,
    attempt: run.attempt,
    scheduledTime: run.scheduled_time,
    timeoutMs: run.timeout_seconds * 1000,
    signal: execution.abort.signal,
    signingSecrets,
    ...(execution.resumed ? { resumed: true } : {}),
    now: dateNow(deps.clock),
  };
}

/** What was done for a run before it was due: its target revealed, its context, what the handler prepared. */
interface Ahead {
  target: ClaimedRun['target'];
  ctx: HandlerContext;
  prepared: unknown;
}

/**
 * The run's target and context, and what its handler prepares before the run is due
 * (Handler.prepare); undefined when its handler prepares nothing, or anything fails here (the
 * target, the secrets, the handler), which the start then meets again and reports as usual.
 */
async function prepareAhead(
  deps: ExecuteDeps,
  execution: Execution,
  signingSecrets: Promise<string[]>,
): Promise<Ahead | undefined> {
  const { run } = execution;
  const handler = deps.handlers.get(run.target.type);
  if (!handler?.prepare) return undefined;
  try {
    const target = deps.secrets.revealTarget(run);
    const ctx = contextOf(deps, execution, await signingSecrets);
    return { target, ctx, prepared: await handler.prepare(target, run.payload, ctx, run.due_at) };
  } catch {
    return undefined;
  }
}

// The handler's clock, one function per DbClock rather than a closure per attempt.
const dateNows = new WeakMap<DbClock, () => Date>();

function dateNow(clock: DbClock): () => Date {
  let now = dateNows.get(clock);
  if (!now) {
    now = () => new Date(clock.now());
    dateNows.set(clock, now);
  }
  return now;
}

/** Waits `wait` ms (by the database clock, with its uncertainty); false if aborted first. */
async function sleepUntilDue(wait: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(wait, undefined, { signal });
    return true;
  } catch {
    return false; // aborted
  }
}
