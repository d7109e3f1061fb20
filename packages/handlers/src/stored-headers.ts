// An attempt's request (or message) headers as run history keeps them: redacted by the handler
// (http-request.ts), then without the headers that follow from the run and the attempt alone
// (webhook-headers.ts; docs/webhooks.md, "What arrives") — the run id as webhook-id and
// idempotency key, the job id, the scheduled time, the attempt number — and the signature, which
// is stored only as the mask. Those were about half of every attempt's row (bench: 585 bytes of
// heap per run). The run page puts them back from the run (withDerivedHeaders), so it shows what
// was sent; rows stored before this kept them, and read back the same. Pure, no imports beyond
// the mask, so the API and the web app can load it.
import { SECRET_MASK } from './kind';

/** Sent with every delivery, and known from the run and the attempt: not stored. */
export const DERIVED_HEADERS = [
  'webhook-id',
  'idempotency-key',
  'belfry-job-id',
  'belfry-scheduled-time',
  'belfry-attempt',
  'webhook-signature',
] as const;

const derived = new Set<string>(DERIVED_HEADERS);

/** The headers to store with an attempt: the redacted ones sent, less those derived from the run. */
export function storedHeaders(sent: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(sent)) if (!derived.has(name)) out[name] = sent[name] as string;
  return out;
}

export interface AttemptOf {
  runId: string;
  jobId: string;
  /** the run's scheduled time (nominal, as belfry-scheduled-time says it), ISO 8601 */
  scheduledTime: string;
  attempt: number;
}

/** An attempt's stored headers with the derived ones put back: what was sent, redacted. */
export function withDerivedHeaders(stored: Record<string, string>, a: AttemptOf): Record<string, string> {
  return {
    ...stored,
    'webhook-id': a.runId,
    'idempotency-key': a.runId,
    'belfry-job-id': a.jobId,
    'belfry-scheduled-time': a.scheduledTime,
    'belfry-attempt': String(a.attempt),
    'webhook-signature': SECRET_MASK,
  };
}
