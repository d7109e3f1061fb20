// attemptOutcome: what the end of an attempt writes to the run and attempt rows.
import type { ClaimedRun } from '@belfry/db';
import type { HandlerOutcome } from '@belfry/handlers';
import { describe, expect, it } from 'vitest';
import { attemptOutcome } from './outcome';

const now = new Date('2026-12-01T07:00:00.000Z');
const run = (attempt: number, maxAttempts = 3): ClaimedRun => ({
  id: 'run_1',
  scheduled_time: new Date('2026-12-01T06:59:59.000Z'),
  due_at: new Date('2026-12-01T06:59:59.000Z'),
  tenant_id: 'ten_1',
  job_id: 'job_1',
  attempt,
  trigger: 'schedule',
  priority: 'normal',
  next_attempt_at: null,
  target: { type: 'http', url: 'https://example.com', method: 'POST', headers: {} },
  payload: null,
  timeout_seconds: 30,
  retry_max_attempts: maxAttempts,
  retry_initial_delay_seconds: 10,
  retry_max_delay_seconds: 100,
  db_now: now,
});
const failed = (extra: Partial<HandlerOutcome> = {}): HandlerOutcome => ({
  ok: false,
  failure: 'http',
  httpStatus: 503,
  error: 'HTTP 503',
  durationMs: 12.4,
  ...extra,
});
const top = () => 1;

describe('attemptOutcome', () => {
  it('records a success with what the target answered', () => {
    const outcome = attemptOutcome(
      run(1),
      { ok: true, httpStatus: 204, responseSnippet: 'ok', requestHeaders: { a: 'b' }, durationMs: 7.6 },
      null,
      now,
      top,
    );
    expect(outcome).toEqual({
      runId: 'run_1',
      scheduledTime: run(1).scheduled_time,
      attempt: 1,
      runStatus: 'succeeded',
      attemptStatus: 'succeeded',
      nextAttemptAt: null,
      httpStatus: 204,
      durationMs: 8,
      error: null,
      responseSnippet: 'ok',
      requestHeaders: { a: 'b' },
      exitCode: null,
    });
  });

  it('stores the request headers without those the run itself says (the run page puts them back)', () => {
    const sent = {
      'content-type': 'application/json',
      'webhook-id': 'run_1',
      'idempotency-key': 'run_1',
      'webhook-timestamp': '1764572399',
      'belfry-job-id': 'job_1',
      'belfry-scheduled-time': '2026-12-01T06:59:59.000Z',
      'belfry-attempt': '1',
      'webhook-signature': '***',
    };
    const outcome = attemptOutcome(run(1), { ok: true, requestHeaders: sent, durationMs: 1 }, null, now, top);
    expect(outcome.requestHeaders).toEqual({ 'content-type': 'application/json', 'webhook-timestamp': '1764572399' });
  });

  it('schedules a retry with backoff for a retryable failure while attempts remain', () => {
    expect(attemptOutcome(run(2), failed(), null, now, top)).toMatchObject({
      runStatus: 'failed',
      attemptStatus: 'failed',
      nextAttemptAt: new Date(now.getTime() + 20_000),
      httpStatus: 503,
      durationMs: 12,
      error: 'HTTP 503',
    });
  });

  it('honours Retry-After within maxDelaySeconds', () => {
    const outcome = attemptOutcome(run(1), failed({ retryAfterMs: 60_000 }), null, now, () => 0);
    expect(outcome.nextAttemptAt).toEqual(new Date(now.getTime() + 60_000));
  });

  it('goes dead when attempts are used up or the failure is final', () => {
    expect(attemptOutcome(run(3), failed(), null, now, top)).toMatchObject({ runStatus: 'dead', nextAttemptAt: null });
    expect(attemptOutcome(run(1), failed({ httpStatus: 404, error: 'HTTP 404' }), null, now, top)).toMatchObject({
      runStatus: 'dead',
      attemptStatus: 'failed',
      error: 'HTTP 404',
    });
    // A failure without a kind is treated as not worth retrying.
    expect(attemptOutcome(run(1), { ok: false, durationMs: 0 }, null, now, top)).toMatchObject({
      runStatus: 'dead',
      error: 'failed',
    });
  });

  it('releases a run the node stopped for shutdown: pending again at once, the attempt cancelled', () => {
    const outcome = attemptOutcome(run(1), failed({ failure: 'connection', error: 'cancelled' }), 'shutdown', now, top);
    expect(outcome).toMatchObject({
      runStatus: 'pending',
      attemptStatus: 'cancelled',
      nextAttemptAt: now,
      error: 'released: worker shutting down',
    });
  });

  it('releases a run whose kind moved to another lane, keeping the reason', () => {
    const outcome = attemptOutcome(run(1), failed({ error: 'rerouted: the target is now pull' }), 'rerouted', now, top);
    expect(outcome).toMatchObject({
      runStatus: 'pending',
      attemptStatus: 'cancelled',
      error: 'rerouted: the target is now pull',
    });
  });

  it('releases a run claimed ahead whose start could not be confirmed: its retries are not spent', () => {
    const error = 'not started: could not confirm the run before starting it (Connection terminated)';
    const outcome = attemptOutcome(run(1), failed({ failure: 'connection', error }), 'unconfirmed', now, top);
    expect(outcome).toMatchObject({ runStatus: 'pending', attemptStatus: 'cancelled', nextAttemptAt: now, error });
  });

  it('a cancelled or lost attempt is recorded as failed (the fence decides whether it counts)', () => {
    expect(attemptOutcome(run(1), failed({ failure: 'connection' }), 'cancelled', now, top)).toMatchObject({
      runStatus: 'failed',
    });
  });
});
