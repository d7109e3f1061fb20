// Warms the HTTP delivery path before a node's first delivery. undici parses responses with llhttp
// compiled to WebAssembly, which V8 compiles lazily and runs unoptimized until it is hot, and the
// handler's own code (building, signing, redacting, the tenant pools, reading the answer) is
// interpreted at first too: in the bench's steady runs, the first second's deliveries cost an
// engine ~3× the CPU of a later second's, and that second's start lag was several times the
// rest's. Requests through a real HttpHandler — prepared ahead and built at the start, as
// deliveries are — to a server of its own on loopback, at start, pay that before any run waits
// for it. 10,000 of them, not a few hundred: V8 optimizes code only once it has run hot for a
// while, and 400 left the first three seconds of a 4,000/s steady load at p99 ~1.3 s (quick
// steady 4,000/s, runs in turns, 2026-12-04: overall p99 851 / 750 / 926 ms with 400 requests,
// 533 / 763 / 556 / 752 / 979 / 612 with 4,000, 488 / 582 / 577 with 10,000; the third second's
// p99 ~1,330 ms with 400, ~400–480 with 10,000). They take ~0.5–1 s of a starting node's CPU.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateSigningSecret } from '@belfry/core';
import type { HandlerContext } from '../types';
import { HttpHandler, type HttpTarget } from './http';

/** requests in flight at once (several sockets per pool, as in a burst) */
const CONCURRENCY = 8;
/** tenant pools the requests are spread over */
const TENANTS = 4;

/**
 * Sends `requests` POSTs through an HttpHandler to a throwaway loopback server, `CONCURRENCY` at
 * a time, and closes both; resolves with the number answered with success.
 */
export async function warmHttpClient(requests = 10_000): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"ok":true}'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const handler = new HttpHandler({ allowPrivateTargets: true });
  const target: HttpTarget = { type: 'http', url: `http://127.0.0.1:${port}/warm-up`, method: 'POST' };
  const signingSecrets = [generateSigningSecret()];
  const signal = new AbortController().signal;
  let answered = 0;
  const deliver = async (i: number) => {
    const ctx: HandlerContext = {
      runId: `run_warmup${i}`,
      jobId: 'job_warmup',
      tenantId: `ten_warmup${i % TENANTS}`,
      attempt: 1,
      scheduledTime: new Date(),
      timeoutMs: 10_000,
      signal,
      signingSecrets,
      now: () => new Date(),
    };
    const payload = { warm: i };
    const prepared = i % 2 === 0 ? handler.prepare(target, payload, ctx, new Date()) : undefined;
    const outcome = await handler.execute(target, payload, prepared ? { ...ctx, prepared } : ctx);
    if (outcome.ok) answered++;
  };
  try {
    for (let i = 0; i < requests; i += CONCURRENCY) {
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, requests - i) }, (_, k) => deliver(i + k)));
    }
    return answered;
  } finally {
    await handler.close().catch(() => {});
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
