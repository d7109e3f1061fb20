// The HTTP webhook handler (docs/webhooks.md): one signed request per attempt through the
// tenant's own undici Agent (see tenant-agents.ts), whose sockets are opened by the SSRF
// guard. It never throws:
// every path, including programming errors, ends in a HandlerOutcome the worker can
// record and feed to the retry policy.
import { Agent, type Dispatcher } from 'undici';
import { isRetryable, parseRetryAfter, type FailureKind } from '@belfry/core';
import type { Handler, HandlerContext, HandlerOutcome } from '../types';
import { createGuardedConnector, InvalidTargetError, type Resolver } from '../guard/ssrf-guard';
import { CheckedUrls } from './checked-urls';
import {
  buildHeaders,
  DEFAULT_USER_AGENT,
  encodeBody,
  HTTP_METHODS,
  PreparedRequest,
  redactHeaders,
  UnsentRequestError,
  type HttpMethod,
} from './http-request';
import { ReadySockets } from './ready-sockets';
import { TenantAgents } from './tenant-agents';
import { Exchange, MAX_TIMER_MS } from './exchange';
import { DeliveryCancelledError, describeFailure, utf8Snippet } from './http-response';

export type { HttpMethod } from './http-request';

export interface HttpTarget {
  type: 'http';
  url: string;
  method: HttpMethod;
  headers?: Record<string, string>;
}

export interface HttpHandlerOptions {
  /** development only: deliver to loopback/private/link-local targets */
  allowPrivateTargets: boolean;
  userAgent?: string;
  /** how much of a response body is kept as the snippet; default 4096 */
  maxResponseBytes?: number;
  /** concurrent sockets per origin, per tenant; default 16 */
  connectionsPerOrigin?: number;
  /** a tenant's connection pool is closed after this long without deliveries; default 60 000 ms */
  tenantPoolIdleMs?: number;
  /** idle keep-alive before a pooled socket is closed; default 4000 ms */
  keepAliveTimeoutMs?: number;
  /** TCP/TLS connect timeout; default 10 000 ms (the attempt's timeoutMs still applies) */
  connectTimeoutMs?: number;
  /** DNS resolver used by the SSRF guard; defaults to the system resolver */
  resolver?: Resolver;
}

// A body up to this long in all is read to its end (the part past the snippet discarded) so a
// pooled socket can be reused; a longer one is cut off (destroying that socket) rather than
// downloaded (Exchange).
const DRAIN_LIMIT_BYTES = 64 * 1024;
const MAX_LOCATION_CHARS = 200;
type Result = Omit<HandlerOutcome, 'durationMs'>;

function failed(failure: FailureKind, error: string, extra: Partial<Result> = {}): Result {
  return { ok: false, failure, error, httpStatus: null, responseSnippet: null, retryAfterMs: null, ...extra };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export class HttpHandler implements Handler<HttpTarget> {
  readonly type = 'http';
  private readonly agents: TenantAgents;
  private readonly allowPrivate: boolean;
  private readonly userAgent: string;
  private readonly maxResponseBytes: number;
  private readonly checkedUrls: CheckedUrls;
  private readonly readySockets: ReadySockets;

  constructor(options: HttpHandlerOptions) {
    this.allowPrivate = options.allowPrivateTargets;
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.maxResponseBytes = options.maxResponseBytes ?? 4096;
    this.checkedUrls = new CheckedUrls(this.allowPrivate);
    const connect = createGuardedConnector({
      allowPrivate: this.allowPrivate,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      ...(options.resolver ? { resolver: options.resolver } : {}),
    });
    const connectionsPerOrigin = options.connectionsPerOrigin ?? 16;
    const keepAliveTimeout = options.keepAliveTimeoutMs ?? 4_000;
    this.readySockets = new ReadySockets(connect, { perOrigin: connectionsPerOrigin, idleMs: keepAliveTimeout });
    this.agents = new TenantAgents({
      idleMs: options.tenantPoolIdleMs ?? 60_000,
      onClose: (tenantId) => this.readySockets.forget(tenantId),
      create: (tenantId) =>
        new Agent({
          // A per-origin cap keeps one tenant's burst to one endpoint from opening hundreds
          // of sockets (to the target's and our cost); excess requests queue in the
          // tenant's own pool, never in front of another tenant's.
          connections: connectionsPerOrigin,
          // Below the 5 s idle timeout of Node's http server and many load balancers: reusing
          // a socket the server is closing fails a POST, which undici won't replay.
          keepAliveTimeout,
          keepAliveMaxTimeout: 30_000,
          pipelining: 1,
          // the guarded connector, through the sockets opened ahead for prepared requests
          connect: this.readySockets.connectorFor(tenantId),
        }),
    });
  }

  async execute(target: HttpTarget, payload: unknown, ctx: HandlerContext): Promise<HandlerOutcome> {
    const started = performance.now();
    let requestHeaders: Record<string, string> | undefined;
    let result: Result;
    try {
      result = await this.agents.use(ctx.tenantId, (agent) =>
        this.deliver(agent, target, payload, ctx, (request) => {
          requestHeaders = request.redactedHeaders;
        }),
      );
    } catch (err) {
      // deliver() maps expected errors itself; this is the never-throw backstop.
      result = failed('connection', `internal error: ${(err as Error)?.message ?? String(err)}`);
    }
    return { ...result, ...(requestHeaders ? { requestHeaders } : {}), durationMs: performance.now() - started };
  }

  /**
   * The request of an attempt claimed ahead of its time, built and signed while it waits: in a
   * burst of runs due at the same instant, signing and building each request was about a fifth
   * of a node's CPU between the due instant and the last request sent (bench steady profile).
   * The timestamp is the attempt's start (`startsAt`, or now if that has passed), as it would
   * be when built at the start. Undefined when the target is not valid: execute reports it.
   */
  prepare(target: HttpTarget, payload: unknown, ctx: HandlerContext, startsAt: Date): PreparedRequest | undefined {
    let request: PreparedRequest;
    try {
      request = this.build(target, payload, ctx, Math.max(startsAt.getTime(), ctx.now().getTime()));
    } catch {
      return undefined;
    }
    // and a socket to send it on, opened meanwhile if the tenant's pool has none to spare (ready-sockets.ts)
    this.readySockets.expect(ctx.tenantId, request.url, request.startMs, ctx.now().getTime());
    return request;
  }

  /** The request to send: method, URL, body and signed headers. Throws for an invalid target. */
  private build(target: HttpTarget, payload: unknown, ctx: HandlerContext, startMs: number): PreparedRequest {
    const method = String(target?.method ?? '').toUpperCase() as HttpMethod;
    if (!HTTP_METHODS.includes(method))
      throw new InvalidTargetError(`unsupported method ${JSON.stringify(target?.method)}`);
    const body = encodeBody(method, payload);
    const hasBody = body !== ''; // encodeBody already gives GET/HEAD and no payload an empty body
    const timestamp = Math.floor(startMs / 1000);
    const { headers, signingError } = buildHeaders(target.headers, body, hasBody, timestamp, ctx, this.userAgent);
    const redactedHeaders = redactHeaders(headers);
    try {
      if (signingError) throw new InvalidTargetError(signingError);
      if (typeof target.url !== 'string') throw new InvalidTargetError(`invalid URL ${JSON.stringify(target.url)}`);
      const url = this.checkedUrls.get(target.url);
      const bytes = hasBody ? Buffer.from(body, 'utf8') : null;
      return new PreparedRequest(method, url, headers, redactedHeaders, bytes, startMs, ctx);
    } catch (err) {
      throw new UnsentRequestError(err as Error, redactedHeaders);
    }
  }

  private async deliver(
    agent: Dispatcher,
    target: HttpTarget,
    payload: unknown,
    ctx: HandlerContext,
    recordRequest: (request: { redactedHeaders: Record<string, string> }) => void,
  ): Promise<Result> {
    let host = '';
    let exchange: Exchange | undefined;
    try {
      const timeoutMs = ctx.timeoutMs;
      if (!(timeoutMs > 0)) throw new InvalidTargetError(`timeoutMs must be positive, got ${timeoutMs}`);
      let request: PreparedRequest;
      // (only for the attempt it was made for)
      if (ctx.prepared instanceof PreparedRequest && ctx.prepared.isFor(ctx)) {
        request = ctx.prepared;
        this.readySockets.started(ctx.tenantId, request.url, request.startMs);
      } else {
        try {
          request = this.build(target, payload, ctx, ctx.now().getTime());
        } catch (err) {
          if (!(err instanceof UnsentRequestError)) throw err;
          recordRequest(err);
          throw err.error;
        }
      }
      recordRequest(request);
      host = request.url.host;

      if (ctx.signal.aborted) throw new DeliveryCancelledError(ctx.signal.reason);
      // One deadline for the whole exchange: a free socket, connect, headers and body.
      exchange = new Exchange({
        maxBytes: this.maxResponseBytes,
        drainLimitBytes: DRAIN_LIMIT_BYTES,
        timeoutMs,
        signal: ctx.signal,
      });
      agent.dispatch(
        exchange.dispatchOptions({
          origin: request.url.origin,
          path: request.url.path,
          method: request.method,
          headers: request.headers,
          body: request.body,
          // Our deadline governs; undici's own per-phase timers are a backstop only.
          headersTimeout: Math.min(timeoutMs + 1_000, MAX_TIMER_MS),
          bodyTimeout: Math.min(timeoutMs + 1_000, MAX_TIMER_MS),
        }),
        exchange,
      );
      const res = await exchange.response;
      // undici hands a finished HTTP/1.1 socket back to its pool only after a setImmediate
      // (client-h1 onMessageComplete); wait that turn so the caller's next delivery to
      // this origin reuses the socket instead of racing it and opening another.
      await new Promise((resolve) => setImmediate(resolve));

      return this.fromResponse(res.statusCode, res.statusText, res.headers, res.bytes, ctx);
    } catch (err) {
      const { failure, error } = describeFailure(err, host || String(target?.url ?? ''));
      return failed(failure, error, { httpStatus: exchange?.statusCode ?? null });
    }
  }

  private fromResponse(
    status: number,
    statusText: string,
    headers: Record<string, string | string[] | undefined>,
    bytes: Buffer,
    ctx: HandlerContext,
  ): Result {
    const responseSnippet = utf8Snippet(bytes, this.maxResponseBytes);
    if (status >= 200 && status <= 299) {
      return { ok: true, httpStatus: status, error: null, responseSnippet, retryAfterMs: null };
    }
    const retryAfterMs = isRetryable('http', status)
      ? parseRetryAfter(headerValue(headers['retry-after']), ctx.now())
      : null;
    let error = `HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
    if (status >= 300 && status <= 399) {
      // Following redirects would let a public URL bounce the request to an internal
      // one after the guard approved it, and re-POST a signed body somewhere unvetted.
      const location = headerValue(headers.location);
      error += location
        ? `: redirect to ${location.slice(0, MAX_LOCATION_CHARS)} not followed`
        : ': redirects are not followed';
    }
    return { ok: false, failure: 'http', httpStatus: status, error, responseSnippet, retryAfterMs };
  }

  async close(): Promise<void> {
    this.readySockets.close();
    await this.agents.close();
  }
}
