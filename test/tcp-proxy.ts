// A TCP proxy on loopback that a test can cut: while cut, it forwards nothing in either
// direction and holds new connections unanswered — no reset, no FIN, as when a network path
// between a node and its database goes dark. Restored, it forwards what was held, as TCP
// retransmission would after a partition heals.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** a URL like `url` with host and port replaced by the proxy's */
  urlFor(url: string): string;
  cut(): void;
  restore(): void;
  readonly isCut: boolean;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket | null;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  const held: Pair[] = []; // accepted while cut: connected upstream on restore
  let cut = false;

  const connect = (pair: Pair) => {
    const upstream = createConnection({ port: targetPort, host: targetHost });
    pair.upstream = upstream;
    upstream.on('error', () => pair.client.destroy());
    upstream.on('close', () => pair.client.destroy());
    pair.client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => pair.client.write(chunk));
    pair.client.resume();
    if (cut) {
      upstream.pause();
      pair.client.pause();
    }
  };

  const server: Server = createServer((client) => {
    const pair: Pair = { client, upstream: null };
    pairs.add(pair);
    client.pause();
    client.on('error', () => pair.upstream?.destroy());
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (cut) held.push(pair);
    else connect(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    urlFor(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut() {
      cut = true;
      for (const p of pairs) {
        p.client.pause();
        p.upstream?.pause();
      }
    },
    restore() {
      cut = false;
      for (const p of pairs) {
        if (!p.upstream) continue;
        p.client.resume();
        p.upstream.resume();
      }
      for (const p of held.splice(0)) if (!p.client.destroyed) connect(p);
    },
    get isCut() {
      return cut;
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
