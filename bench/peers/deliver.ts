// The peers' webhook request: what a user building Belfry's job on a queue library would send
// from the handler — a JSON POST through a keep-alive undici pool, with the same identifying
// headers Belfry sends (webhook-id, belfry-job-id, belfry-scheduled-time, belfry-attempt), so
// the sink measures lag, duplicates and missing occurrences the same way. Unsigned: signing is
// part of what Belfry does on top.
import { Agent, request } from 'undici';
import type { Deliver } from './types';

export function sinkDeliverer(sinkUrl: string, connections: number): { deliver: Deliver; close(): Promise<void> } {
  const agent = new Agent({
    connections,
    // The same socket settings as Belfry's HTTP handler (packages/handlers/src/http/http.ts).
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
    pipelining: 1,
    // Belfry's bench jobs time out after 10 s.
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const deliver: Deliver = async (d) => {
    const body = JSON.stringify({ bench: true });
    const res = await request(sinkUrl, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Belfry-Bench-Peer/1.0',
        'webhook-id': d.runId,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'idempotency-key': d.runId,
        'belfry-job-id': d.jobId,
        'belfry-scheduled-time': d.scheduledTime,
        'belfry-attempt': String(d.attempt),
      },
      body,
    });
    await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`sink answered ${res.statusCode}`);
  };
  return { deliver, close: () => agent.close() };
}
