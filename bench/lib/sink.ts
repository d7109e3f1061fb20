// A webhook sink on 127.0.0.1 that answers 200 at once and records, per delivery, when it
// arrived and which occurrence it was. Requests to a path ending in /hang are recorded but
// never answered (a tenant whose target hangs, for the fairness scenario). Runs in its own process (bench/lib/sink-process.ts)
// so its CPU does not skew the measuring process.
import { createServer } from 'node:http';

export interface SinkRecord {
  at: number; // ms epoch when the request headers arrived
  runId: string;
  jobId: string;
  scheduled: number; // belfry-scheduled-time, ms epoch
  attempt: number;
}

export function serveSink(onRecord: (r: SinkRecord) => void): Promise<{ port: number; close(): void }> {
  const server = createServer((req, res) => {
    // The bench's own warm-up requests (see warmSink) are answered, never recorded.
    if (req.url !== '/warmup') {
      const h = req.headers;
      onRecord({
        at: Date.now(),
        runId: String(h['webhook-id'] ?? ''),
        jobId: String(h['belfry-job-id'] ?? ''),
        scheduled: Date.parse(String(h['belfry-scheduled-time'] ?? '')),
        attempt: Number(h['belfry-attempt'] ?? 0),
      });
    }
    req.resume();
    if (req.url?.endsWith('/hang')) return;
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      resolve({ port: typeof addr === 'object' && addr ? addr.port : 0, close: () => server.close() });
    });
  });
}
