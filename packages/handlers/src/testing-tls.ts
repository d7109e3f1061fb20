// TLS for broker tests: a throwaway certificate authority and server certificates made with the
// machine's openssl in a temp dir, and a TLS-terminating proxy on a loopback port that forwards
// the decrypted stream to a plain broker port (RabbitMQ here has no TLS listener, and must not
// be reconfigured for a test).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net, { type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { childEnv } from '../../../test/env';
import type { HandlerOutcome } from './types';

const run = promisify(execFile);

export interface ServerCertificate {
  key: string;
  cert: string;
  keyFile: string;
  certFile: string;
}

export interface TestCa {
  dir: string;
  /** the CA certificate's PEM file (what an operator puts in NODE_EXTRA_CA_CERTS) */
  caFile: string;
  /** a key and certificate for `subjectAltName` (e.g. "IP:127.0.0.1"), signed by this CA: PEM text and files */
  issue(name: string, subjectAltName: string): Promise<ServerCertificate>;
  remove(): Promise<void>;
}

/** A new CA (P-256, valid one day) in its own temp dir. */
export async function testCa(): Promise<TestCa> {
  const dir = await mkdtemp(path.join(tmpdir(), 'belfry-tls-'));
  const file = (name: string) => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=Belfry test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return {
    dir,
    caFile: file('ca.pem'),
    async issue(name, subjectAltName) {
      await run('openssl', [
        'req',
        ...ec,
        '-keyout',
        file(`${name}.key`),
        '-out',
        file(`${name}.csr`),
        '-subj',
        `/CN=${name}`,
      ]);
      await writeFile(file(`${name}.ext`), `subjectAltName=${subjectAltName}\nextendedKeyUsage=serverAuth\n`);
      await run('openssl', [
        'x509',
        '-req',
        '-in',
        file(`${name}.csr`),
        '-CA',
        file('ca.pem'),
        '-CAkey',
        file('ca.key'),
        '-CAcreateserial',
        '-days',
        '1',
        '-extfile',
        file(`${name}.ext`),
        '-out',
        file(`${name}.pem`),
      ]);
      return {
        key: await readFile(file(`${name}.key`), 'utf8'),
        cert: await readFile(file(`${name}.pem`), 'utf8'),
        keyFile: file(`${name}.key`),
        certFile: file(`${name}.pem`),
      };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

const CHILD = fileURLToPath(new URL('./testing-publish-child.ts', import.meta.url));

/**
 * One attempt per publish (amqp or nats targets), made in a child process that trusts `caFile`
 * the way an operator makes Belfry trust a private CA: NODE_EXTRA_CA_CERTS at process start.
 */
export async function publishTrustingCa(
  caFile: string,
  publishes: { target: { type: 'amqp' | 'nats' }; runId: string; payload: unknown }[],
  secret: string,
): Promise<HandlerOutcome[]> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify({ publishes, secret })], {
    env: childEnv({ NODE_EXTRA_CA_CERTS: caFile }),
    timeout: 60_000,
  });
  return JSON.parse(stdout) as HandlerOutcome[];
}

export interface TlsProxy {
  port: number;
  /** TLS handshakes completed (a client that refused the certificate never completes one) */
  handshakes: number;
  close(): Promise<void>;
}

/** Terminates TLS with `key`/`cert` on a loopback port and forwards the plain stream to 127.0.0.1:`targetPort`. */
export async function tlsProxy(targetPort: number, credentials: { key: string; cert: string }): Promise<TlsProxy> {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  };
  const server = tls.createServer(credentials, (client) => {
    proxy.handshakes++;
    track(client);
    const upstream = net.connect(targetPort, '127.0.0.1');
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  server.on('tlsClientError', () => {}); // a client that rejects the certificate
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: TlsProxy = {
    port: (server.address() as net.AddressInfo).port,
    handshakes: 0,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
