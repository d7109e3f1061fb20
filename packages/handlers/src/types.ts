// The handler interface: how a run's target is executed. Each kind's folder implements it
// (http/http.ts is the first); registry.ts makes one per kind.
import type { FailureKind } from '@belfry/core';

export interface HandlerContext {
  runId: string;
  jobId: string;
  tenantId: string;
  attempt: number;
  scheduledTime: Date;
  timeoutMs: number;
  /** aborted when the run is cancelled, the lease is lost or the node shuts down */
  signal: AbortSignal;
  /** the tenant's signing secrets, current first (two during a rotation) */
  signingSecrets: string[];
  /** the attempt was started by a node that died: pick up what it left (a container) rather than start anew */
  resumed?: boolean;
  /** what this handler's prepare() returned for this attempt, before it was due */
  prepared?: unknown;
  now(): Date;
}

export interface HandlerOutcome {
  ok: boolean;
  /** why it failed; decides whether to retry */
  failure?: FailureKind;
  httpStatus?: number | null;
  error?: string | null;
  /** a container's exit code */
  exitCode?: number | null;
  /** first 4 KiB of the response body, or a container's last 4 KiB of output (UTF-8, cut on a character boundary) */
  responseSnippet?: string | null;
  /** from a Retry-After header, in ms */
  retryAfterMs?: number | null;
  /** what was sent, with secrets redacted (signatures, authorization, cookies) */
  requestHeaders?: Record<string, string>;
  durationMs: number;
}

export interface Handler<Target = unknown> {
  readonly type: string;
  execute(target: Target, payload: unknown, ctx: HandlerContext): Promise<HandlerOutcome>;
  /**
   * Optional: the work of an attempt that can be done before it is due (an HTTP request built
   * and signed), for an attempt known to start at `startsAt`. Never throws; undefined when
   * nothing was prepared (execute then does it all, and reports what is wrong).
   */
  prepare?(target: Target, payload: unknown, ctx: HandlerContext, startsAt: Date): unknown;
  close?(): Promise<void>;
}
