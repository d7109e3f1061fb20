// The `nats` handler: one JetStream publish per attempt with Nats-Msg-Id = the run id (so
// JetStream drops the duplicate when an attempt whose PubAck was lost is retried), the signed
// webhook headers as message headers, and success only on the stream's PubAck. Connections are
// pooled per (tenant, server URL) (brokers/connection-pool.ts) and opened to the address the
// SSRF guard checked, without reconnects and ignoring the cluster's gossip of other servers
// (those addresses would bypass the guard): a connection that drops leaves the pool and the
// next publish opens a new one. No stream for the subject, a refused or dropped connection and
// the attempt's deadline are retryable; a refused login is final. Never throws.
import net from 'node:net';
import { type ConnectionOptions, connect, headers as natsHeaders, type NatsConnection } from 'nats';
import { describeBroker } from '../brokers/broker-url';
import { MAX_TIMER_MS, runBrokerAttempt } from '../brokers/attempt';
import { BrokerAuthError, NotConfirmedError } from '../brokers/broker-errors';
import { ConnectionPool, type ConnectionPoolOptions, raceSignal } from '../brokers/connection-pool';
import { guardedAddress } from '../brokers/guarded-address';
import { InvalidTargetError, type Resolver } from '../guard/ssrf-guard';
import type { Handler, HandlerContext, HandlerOutcome } from '../types';

export interface NatsTarget {
  type: 'nats';
  url: string;
  subject: string;
  headers?: Record<string, string>;
}

export interface NatsHandlerOptions extends ConnectionPoolOptions {
  /** development only: connect to loopback/private/link-local servers */
  allowPrivateTargets: boolean;
  /** connect + login timeout; default 10 000 ms (the attempt's timeout still applies) */
  connectTimeoutMs?: number;
  resolver?: Resolver;
}

const AUTH_CODES = new Set([
  'AUTHORIZATION_VIOLATION',
  'AUTHENTICATION_EXPIRED',
  'BAD_AUTHENTICATION',
  'BAD_CREDS',
  'ACCOUNT_EXPIRED',
]);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export class NatsHandler implements Handler<NatsTarget> {
  readonly type = 'nats';
  private readonly pool: ConnectionPool<NatsConnection>;

  constructor(private readonly options: NatsHandlerOptions) {
    this.pool = new ConnectionPool<NatsConnection>(
      { open: (url, onClosed) => this.open(url, onClosed), close: (nc) => nc.close() },
      options,
    );
  }

  /** Connections open or opening, all tenants or one (tests, metrics). */
  connections(tenantId?: string): number {
    return this.pool.size(tenantId);
  }

  execute(target: NatsTarget, payload: unknown, ctx: HandlerContext): Promise<HandlerOutcome> {
    return runBrokerAttempt(target, payload, ctx, async ({ body, headers, deadline, signal, where }) => {
      const ack = await this.pool.use(ctx.tenantId, target.url, signal, async (nc) => {
        const h = natsHeaders();
        for (const [name, value] of Object.entries(headers)) h.set(name, value);
        const publish = nc.jetstream().publish(target.subject, Buffer.from(body, 'utf8'), {
          msgID: ctx.runId,
          headers: h,
          // The library's own PubAck timeout, just past our deadline (which wins the race).
          timeout: Math.max(1, Math.min(deadline - Date.now() + 1_000, MAX_TIMER_MS)),
        });
        publish.catch(() => {}); // settled after our deadline: nobody is waiting any more
        try {
          return await raceSignal(publish, signal);
        } catch (err) {
          throw publishFailure(err, target, where);
        }
      });
      return `PubAck from ${where}: stream ${JSON.stringify(ack.stream)}, sequence ${ack.seq}${ack.duplicate ? ' (a duplicate of an earlier attempt: stored once)' : ''}`;
    });
  }

  private async open(url: string, onClosed: () => void): Promise<NatsConnection> {
    const where = describeBroker(url);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InvalidTargetError('invalid server URL');
    }
    const scheme = parsed.protocol.slice(0, -1);
    if (scheme !== 'nats' && scheme !== 'tls') throw new InvalidTargetError(`unsupported URL scheme ${scheme}:`);
    const { address, servername } = await guardedAddress(parsed.hostname, {
      allowPrivate: this.options.allowPrivateTargets,
      ...(this.options.resolver ? { resolver: this.options.resolver } : {}),
    });
    const port = parsed.port ? Number(parsed.port) : 4222;
    const options: ConnectionOptions = {
      servers: `${net.isIPv6(address) ? `[${address}]` : address}:${port}`,
      name: 'belfry',
      timeout: this.options.connectTimeoutMs ?? 10_000,
      reconnect: false,
      maxReconnectAttempts: 0,
      ignoreClusterUpdates: true,
      noRandomize: true,
      resolve: false,
    };
    const user = decodeURIComponent(parsed.username);
    const pass = decodeURIComponent(parsed.password);
    if (user && pass) Object.assign(options, { user, pass });
    else if (user) options.token = user;
    // Node's tls.connect takes servername (SNI and the certificate check); nats.js passes its tls options through.
    if (scheme === 'tls') options.tls = (servername ? { servername } : {}) as ConnectionOptions['tls'];
    let nc: NatsConnection;
    try {
      nc = await connect(options);
    } catch (err) {
      const code = codeOf(err);
      if (code && AUTH_CODES.has(code)) {
        throw new BrokerAuthError(`authentication refused by ${where} (${code}): check the credentials in the URL`);
      }
      if (code === 'CONNECTION_REFUSED') {
        throw Object.assign(new Error(`connection refused by ${where}`), { code: 'ECONNREFUSED' });
      }
      if (code === 'CONNECTION_TIMEOUT' || code === 'TIMEOUT') {
        throw Object.assign(new Error(`connecting to ${where} timed out`), { code: 'ETIMEDOUT' });
      }
      throw err;
    }
    void nc.closed().then(onClosed, onClosed);
    return nc;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** Why a JetStream publish was not acknowledged, as an error describeBrokerFailure words. */
function publishFailure(err: unknown, target: NatsTarget, where: string): unknown {
  const code = codeOf(err);
  if (code === '503') {
    return new NotConfirmedError(
      `no JetStream stream captures subject ${JSON.stringify(target.subject)} on ${where} (503 no responders)`,
    );
  }
  if (code === 'TIMEOUT')
    return Object.assign(new Error(`${where} did not acknowledge in time`), { code: 'ETIMEDOUT' });
  if (code && AUTH_CODES.has(code)) return new BrokerAuthError(`${where} refused the publish (${code})`);
  if (code === 'PERMISSIONS_VIOLATION') {
    return new BrokerAuthError(`${where} does not permit publishing to ${JSON.stringify(target.subject)}`);
  }
  if (code === 'MAX_PAYLOAD_EXCEEDED') {
    return new InvalidTargetError(`the message is larger than ${where} accepts (MAX_PAYLOAD_EXCEEDED)`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new NotConfirmedError(`${where} did not acknowledge the message: ${message}`);
}
