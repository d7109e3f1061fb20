// The dashboard + API server: Next's request handler on a node:http server of our own, so each
// request's client address comes from the TCP peer (Next's own server trusts any
// X-Forwarded-For a client sends). The address (security/client-address.ts: the peer, or the
// proxy's last X-Forwarded-For entry when BELFRY_TRUST_PROXY=1) is written into the
// x-belfry-client-address header, replacing whatever the client put there; without a trusted
// proxy the client's X-Forwarded-* and X-Real-IP headers are dropped, so Next fills them in
// from the socket. Run from apps/web: `node --import tsx ../../scripts/web-server.ts`.
import { createServer } from 'node:http';
import { CLIENT_ADDRESS_HEADER, clientAddress, markClientAddressStamping } from '@belfry/api';
import next from 'next';

const UNTRUSTED = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip'];

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 1 || port > 65_535) {
  console.error(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}
const trustProxy = process.env.BELFRY_TRUST_PROXY === '1';

markClientAddressStamping();
const app = next({ dev: false, dir: process.cwd(), port });
await app.prepare();
const handle = app.getRequestHandler();

const server = createServer((req, res) => {
  const address = clientAddress({
    peer: req.socket.remoteAddress,
    forwardedFor: req.headers['x-forwarded-for'],
    trustProxy,
  });
  if (!trustProxy) for (const name of UNTRUSTED) delete req.headers[name];
  if (address) req.headers[CLIENT_ADDRESS_HEADER] = address;
  else delete req.headers[CLIENT_ADDRESS_HEADER];
  void handle(req, res);
});
server.listen(port, () => console.log(`belfry web listening on :${port}`));

let closing = false;
function stop(): void {
  if (closing) return;
  closing = true;
  server.close(() => {
    void app.close().finally(() => process.exit(0));
  });
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 10_000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
