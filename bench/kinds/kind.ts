// What the `handlers` scenario needs from a kind of target (see index.ts): a receiver that
// records every arrival of that kind's runs, as the webhook sink does.
import type { SinkRecord } from '../lib/sink';

export interface KindReceiver {
  /** the stored target of every job of this kind */
  target: Record<string, unknown>;
  /** the jobs' timeoutSeconds, when the kind needs other than the bench's default */
  timeoutSeconds?: number;
  /** arrivals so far (filled while the scenario waits) */
  records: SinkRecord[];
  /** what stopped the receiver early (a consumer's failure), if anything */
  failure?(): unknown;
  stop(): Promise<void>;
}

export interface KindBenchContext {
  /** the bench database's URL (a kind whose runs are claimed, not pushed, may start its own consumers) */
  databaseUrl: string;
  tenants: string[];
  /** unique per scenario run: names of exchanges, queues, streams */
  runTag: string;
}

export interface KindBench {
  kind: string;
  start(ctx: KindBenchContext): Promise<KindReceiver>;
}

/** A record from message headers (the §3 headers every kind carries). */
export function recordOf(at: number, header: (name: string) => string | undefined): SinkRecord {
  return {
    at,
    runId: header('webhook-id') ?? '',
    jobId: header('belfry-job-id') ?? '',
    scheduled: Date.parse(header('belfry-scheduled-time') ?? ''),
    attempt: Number(header('belfry-attempt') ?? 0),
  };
}
