// The `amqp` handler: one persistent, `mandatory` message per attempt, published on a confirm
// channel, and success only when RabbitMQ confirms it. Connections are pooled per (tenant,
// broker URL) (brokers/connection-pool.ts) and opened to the address the SSRF guard checked.
// Each publish borrows a channel of its own from the connection, so a channel error (an
// exchange that does not exist) fails that one publish, not the others in flight; a message
// the broker returns as unroutable, a nack, a closed channel or connection, a refused
// connection and the attempt's deadline are retryable failures; a refused login is final.
// Never throws: every path ends in a HandlerOutcome.
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { describeBroker } from '../brokers/broker-url';
import { runBrokerAttempt } from '../brokers/attempt';
import { BrokerAuthError, NotConfirmedError } from '../brokers/broker-errors';
import { ConnectionPool, type ConnectionPoolOptions } from '../brokers/connection-pool';
import { guardedAddress } from '../brokers/guarded-address';
import { InvalidTargetError, type Resolver } from '../guard/ssrf-guard';
import type { Handler, HandlerContext, HandlerOutcome } from '../types';

export interface AmqpTarget {
  type: 'amqp';
  url: string;
  exchange: string;
  routingKey?: string;
  persistent?: boolean;
  headers?: Record<string, string>;
}

export interface AmqpHandlerOptions extends ConnectionPoolOptions {
  /** development only: connect to loopback/private/link-local brokers */
  allowPrivateTargets: boolean;
  /** TCP connect + AMQP handshake timeout; default 10 000 ms (the attempt's timeout still applies) */
  connectTimeoutMs?: number;
  /**
   * idle channels kept per connection for the next publishes; default 64: above a tenant's
   * default concurrency (BELFRY_TENANT_CONCURRENCY, 50), so a tenant publishing at its limit
   * reuses channels instead of opening and closing one (two broker round trips) per publish
   */
  idleChannels?: number;
  resolver?: Resolver;
}

interface AmqpConnection {
  model: ChannelModel;
  idle: ConfirmChannel[];
}

/** An AMQP close (connection or channel) as `403 (ACCESS-REFUSED) ...`, from amqplib's message or fields. */
function isAccessRefused(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e?.code === 403) return true;
  return typeof e?.message === 'string' && /\b403\b.*ACCESS[-_]REFUSED/.test(e.message);
}

export class AmqpHandler implements Handler<AmqpTarget> {
  readonly type = 'amqp';
  private readonly pool: ConnectionPool<AmqpConnection>;
  private readonly idleChannels: number;

  constructor(private readonly options: AmqpHandlerOptions) {
    this.idleChannels = options.idleChannels ?? 64;
    this.pool = new ConnectionPool<AmqpConnection>(
      { open: (url, onClosed) => this.open(url, onClosed), close: (c) => c.model.close() },
      options,
    );
  }

  /** Connections open or opening, all tenants or one (tests, metrics). */
  connections(tenantId?: string): number {
    return this.pool.size(tenantId);
  }

  execute(target: AmqpTarget, payload: unknown, ctx: HandlerContext): Promise<HandlerOutcome> {
    return runBrokerAttempt(target, payload, ctx, async ({ body, headers, timestamp, signal, where }) => {
      await this.pool.use(ctx.tenantId, target.url, signal, (connection) =>
        this.publish(connection, target, body, headers, ctx, timestamp, signal),
      );
      const routed = `exchange ${JSON.stringify(target.exchange)}, routing key ${JSON.stringify(target.routingKey ?? '')}`;
      return `confirmed by ${where} (${routed})`;
    });
  }

  private async open(url: string, onClosed: () => void): Promise<AmqpConnection> {
    const where = describeBroker(url);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InvalidTargetError('invalid broker URL');
    }
    const protocol = parsed.protocol.slice(0, -1);
    if (protocol !== 'amqp' && protocol !== 'amqps')
      throw new InvalidTargetError(`unsupported URL scheme ${protocol}:`);
    const { address, servername } = await guardedAddress(parsed.hostname, {
      allowPrivate: this.options.allowPrivateTargets,
      ...(this.options.resolver ? { resolver: this.options.resolver } : {}),
    });
    const vhost = decodeURIComponent(parsed.pathname.slice(1)) || '/';
    let model: ChannelModel;
    try {
      model = await connect(
        {
          protocol,
          hostname: address,
          port: parsed.port ? Number(parsed.port) : protocol === 'amqp' ? 5672 : 5671,
          // amqplib logs in as guest/guest when both are missing; an empty login is what was written.
          username: decodeURIComponent(parsed.username),
          password: decodeURIComponent(parsed.password),
          vhost,
        },
        {
          timeout: this.options.connectTimeoutMs ?? 10_000,
          noDelay: true,
          ...(servername ? { servername } : {}),
          clientProperties: { connection_name: 'belfry' },
        },
      );
    } catch (err) {
      if (isAccessRefused(err)) {
        throw new BrokerAuthError(`authentication refused by ${where}: check the user and password in the URL`);
      }
      if (err instanceof Error && /\b530\b.*NOT[-_]ALLOWED/.test(err.message)) {
        throw new Error(`${where}: the user may not use this virtual host, or it does not exist (${err.message})`);
      }
      throw err;
    }
    // Without listeners an 'error' event would crash the process; a closed connection
    // leaves the pool and the next publish reconnects.
    model.on('error', () => {});
    model.on('close', onClosed);
    return { model, idle: [] };
  }

  private async channel(connection: AmqpConnection): Promise<ConfirmChannel> {
    const idle = connection.idle.pop();
    if (idle) return idle;
    const channel = await connection.model.createConfirmChannel();
    channel.on('error', () => {}); // reported through the close/callbacks of the publish in flight
    return channel;
  }

  private release(connection: AmqpConnection, channel: ConfirmChannel, reusable: boolean): void {
    channel.removeAllListeners('return');
    channel.removeAllListeners('close');
    channel.removeAllListeners('error');
    channel.on('error', () => {});
    if (reusable && connection.idle.length < this.idleChannels) connection.idle.push(channel);
    else void channel.close().catch(() => {});
  }

  private async publish(
    connection: AmqpConnection,
    target: AmqpTarget,
    body: string,
    headers: Record<string, string>,
    ctx: HandlerContext,
    timestamp: number,
    signal: AbortSignal,
  ): Promise<void> {
    const channel = await this.channel(connection);
    let reusable = false;
    try {
      await new Promise<void>((resolve, reject) => {
        let returned: string | null = null;
        let channelError: unknown = null;
        const onAbort = () => reject(signal.reason);
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        const settle = (fn: () => void) => {
          signal.removeEventListener('abort', onAbort);
          fn();
        };
        // RabbitMQ sends basic.return before the confirm of the same mandatory message.
        channel.on('return', (message) => {
          const f = message.fields as { replyCode?: number; replyText?: string };
          returned = `${f.replyCode ?? 312} ${f.replyText ?? 'NO_ROUTE'}`;
        });
        channel.once('error', (err: unknown) => {
          channelError = err;
        });
        channel.once('close', () => settle(() => reject(confirmFailure(null, channelError, target))));
        channel.publish(
          target.exchange,
          target.routingKey ?? '',
          Buffer.from(body, 'utf8'),
          {
            mandatory: true,
            persistent: target.persistent ?? true,
            messageId: ctx.runId,
            contentType: 'application/json',
            contentEncoding: 'utf-8',
            timestamp,
            appId: 'belfry',
            headers,
          },
          (err) =>
            settle(() => {
              if (err) reject(confirmFailure(err, channelError, target));
              else if (returned) {
                reject(
                  new NotConfirmedError(
                    `unroutable: ${describeBroker(target.url)} returned the message (${returned}): no queue is bound to exchange ${JSON.stringify(target.exchange)} for routing key ${JSON.stringify(target.routingKey ?? '')}`,
                  ),
                );
              } else resolve();
            }),
        );
      });
      reusable = true;
    } finally {
      // A channel whose publish timed out or failed is in an unknown state: not reused.
      this.release(connection, channel, reusable);
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** Why a publish was not confirmed: a nack, or the channel (or its connection) closing first. */
function confirmFailure(callbackError: unknown, channelError: unknown, target: AmqpTarget): Error {
  if (channelError) return channelClosed(channelError, target);
  const where = describeBroker(target.url);
  if (callbackError instanceof Error && callbackError.message === 'message nacked') {
    return new NotConfirmedError(`${where} did not take the message (nack)`);
  }
  return new NotConfirmedError(`the connection to ${where} closed before the broker confirmed the message`);
}

/** A channel closed by the broker while publishing: a permission refusal is final, anything else retried. */
function channelClosed(err: unknown, target: AmqpTarget): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (isAccessRefused(err)) {
    return new BrokerAuthError(`${describeBroker(target.url)} refused the publish: ${message}`);
  }
  if ((err as { code?: unknown })?.code === 404) {
    return new NotConfirmedError(
      `exchange ${JSON.stringify(target.exchange)} does not exist on ${describeBroker(target.url)} (${message})`,
    );
  }
  return new NotConfirmedError(`${describeBroker(target.url)} closed the channel: ${message}`);
}
