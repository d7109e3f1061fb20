// The headers of docs/webhooks.md, "What arrives", that every delivery carries, whatever its kind:
// the run id as webhook-id and idempotency key, the attempt's timestamp, Belfry's
// job/occurrence/attempt headers and the Standard Webhooks signature over exactly the body sent.
// HTTP requests send them as request headers, broker messages (amqp, nats) as message headers, so
// one receiver verifies both the same way. Pure.
import { webhookSignatureHeader } from '@belfry/core';
import type { HandlerContext } from './types';

export interface SignedHeaders {
  headers: Record<string, string>;
  /** set when signing failed (bad secret or run id); nothing must be sent */
  signingError?: string;
}

export function webhookHeaders(ctx: HandlerContext, timestampSeconds: number, body: string): SignedHeaders {
  const headers: Record<string, string> = {
    'webhook-id': ctx.runId,
    'webhook-timestamp': String(timestampSeconds),
    'idempotency-key': ctx.runId,
    'belfry-job-id': ctx.jobId,
    'belfry-scheduled-time': ctx.scheduledTime.toISOString(),
    'belfry-attempt': String(ctx.attempt),
  };
  try {
    headers['webhook-signature'] = webhookSignatureHeader(ctx.signingSecrets, ctx.runId, timestampSeconds, body);
    return { headers };
  } catch (err) {
    return { headers, signingError: `cannot sign the delivery: ${(err as Error).message}` };
  }
}

/**
 * A broker message's headers: the target's own (lower-cased, as HTTP sends them), then the
 * JSON content type and the §3 headers, which always win.
 */
export function messageHeaders(
  targetHeaders: Record<string, string> | undefined,
  ctx: HandlerContext,
  timestampSeconds: number,
  body: string,
): SignedHeaders {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(targetHeaders ?? {})) headers[name.toLowerCase()] = String(value);
  headers['content-type'] = 'application/json';
  const signed = webhookHeaders(ctx, timestampSeconds, body);
  return { ...signed, headers: { ...headers, ...signed.headers } };
}
