// Warms the HTTP client before a node's first delivery. undici parses responses with llhttp
// compiled to WebAssembly, which V8 compiles lazily and runs unoptimized until it is hot: in the
// bench's steady runs, parsing the first second's responses cost an engine ~150 ms of CPU
// (under 2 ms a second later), on top of the rest of its cold code, and that second's start lag
// was several times the rest's. A few hundred requests to a server of its own on loopback, at
// start, pay that before any run waits for it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'undici';

/**
 * Sends `requests` POSTs through undici to a throwaway loopback server, one after another, and
 * closes both; resolves with the number of answers read.
 */
export async function warmHttpClient(requests = 300): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"ok":true}'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1 });
  let answered = 0;
  try {
    for (let i = 0; i < requests; i++) {
      const res = await client.request({
        path: '/warm-up',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"warm":true}',
      });
      if ((await res.body.text()) === '{"ok":true}') answered++;
    }
    return answered;
  } finally {
    await client.close().catch(() => {});
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
