// Warms the HTTP delivery path before a node's first delivery. undici parses responses with llhttp
// compiled to WebAssembly, which V8 compiles lazily and runs unoptimized until it is hot, and the
// handler's own code (building, signing, redacting, the tenant pools, reading the answer) is
// interpreted at first too: in the bench's steady runs, the first second's deliveries cost an
// engine ~3× the CPU of a later second's, and that second's start lag was several times the
// rest's. A few hundred requests through a real HttpHandler — prepared ahead and built at the
// start, as deliveries are — to a server of its own on loopback, at start, pay that before any
// run waits for it.
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
export async function warmHttpClient(requests = 400): Promise<number> {
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
