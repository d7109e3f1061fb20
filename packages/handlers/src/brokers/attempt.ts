// One delivery attempt to a message broker, the part every broker kind shares: the message
// (the JSON body, the target's headers plus the signed webhook headers, their redacted copy
// for the run's record), the attempt's deadline and the run's cancel as one abort signal, and
// whatever happens shaped as a HandlerOutcome. The kind supplies only the publish itself
// (amqp/amqp.ts, nats/nats.ts). Never throws.
import type { FailureKind } from '@belfry/core';
import { InvalidTargetError } from '../guard/ssrf-guard';
import { encodeBody, redactHeaders } from '../http/http-request';
import type { HandlerContext, HandlerOutcome } from '../types';
import { messageHeaders } from '../webhook-headers';
import { describeBroker } from './broker-url';
import { DeliveryCancelledError, DeliveryTimeoutError, describeBrokerFailure } from './broker-errors';

// setTimeout overflows (and fires at once) past 2^31-1 ms.
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a broker kind publishes in one attempt. */
export interface BrokerMessage {
  body: string;
  /** the headers to send, signature included */
  headers: Record<string, string>;
  /** the webhook-timestamp header's value, in seconds */
  timestamp: number;
  /** when the attempt's timeout ends, in Date.now() milliseconds */
  deadline: number;
  /** aborted at the deadline (DeliveryTimeoutError) or on a cancel (DeliveryCancelledError) */
  signal: AbortSignal;
  /** the broker as a log/error message may name it: no credentials */
  where: string;
}

/**
 * Runs `publish` as one attempt of `ctx`'s run. `publish` resolves with the success snippet
 * (what the broker confirmed) or throws what describeBrokerFailure turns into a failure.
 */
export async function runBrokerAttempt(
  target: { url: string; headers?: Record<string, string> },
  payload: unknown,
  ctx: HandlerContext,
  publish: (message: BrokerMessage) => Promise<string>,
): Promise<HandlerOutcome> {
  const started = performance.now();
  const where = describeBroker(String(target?.url ?? ''));
  const abort = new AbortController();
  const onCancel = () => abort.abort(new DeliveryCancelledError(ctx.signal.reason));
  let timer: NodeJS.Timeout | undefined;
  let requestHeaders: Record<string, string> | undefined;
  let result: Omit<HandlerOutcome, 'durationMs'>;
  try {
    if (!(ctx.timeoutMs > 0)) throw new InvalidTargetError(`timeoutMs must be positive, got ${ctx.timeoutMs}`);
    const body = encodeBody('POST', payload);
    const timestamp = Math.floor(ctx.now().getTime() / 1000);
    const { headers, signingError } = messageHeaders(target.headers, ctx, timestamp, body);
    requestHeaders = redactHeaders(headers);
    if (signingError) throw new InvalidTargetError(signingError);

    if (ctx.signal.aborted) throw new DeliveryCancelledError(ctx.signal.reason);
    ctx.signal.addEventListener('abort', onCancel, { once: true });
    const deadline = Date.now() + ctx.timeoutMs;
    timer = setTimeout(
      () => abort.abort(new DeliveryTimeoutError(ctx.timeoutMs)),
      Math.min(ctx.timeoutMs, MAX_TIMER_MS),
    );
    const snippet = await publish({ body, headers, timestamp, deadline, signal: abort.signal, where });
    result = { ok: true, httpStatus: null, error: null, responseSnippet: snippet, retryAfterMs: null };
  } catch (err) {
    // Our own deadline or cancel is the reason, whatever the publish threw on its way out.
    const reason = abort.signal.aborted ? abort.signal.reason : err;
    const { failure, error } = describeBrokerFailure(reason, where);
    result = failed(failure, error);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onCancel);
  }
  return { ...result, ...(requestHeaders ? { requestHeaders } : {}), durationMs: performance.now() - started };
}

function failed(failure: FailureKind, error: string): Omit<HandlerOutcome, 'durationMs'> {
  return { ok: false, failure, error, httpStatus: null, responseSnippet: null, retryAfterMs: null };
}
