// One HTTP exchange of a delivery, as an undici dispatch handler: the response's status and
// headers, and a bounded prefix of its body for the snippet, read straight from the parser's
// callbacks. undici's request() wraps the same callbacks in an async resource, a Readable body
// stream and its events, which the snippet then had to read and drain: about half of the HTTP
// client's CPU per request (28 µs against 14 µs in a loopback loop of 60,000 POSTs), in the
// engine's hottest path.
//
// One deadline and the attempt's signal end the exchange wherever it is: still queued for one
// of the tenant's sockets (it settles at once and leaves the queue without a socket: below),
// sending, waiting for the headers, or reading the body.
import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';
import { DeliveryCancelledError, DeliveryTimeoutError } from './http-response';

/**
 * undici's hook for a request waiting in a client's queue: a dispatch option under this symbol
 * is called with a function that takes the request out of the queue (how request() honours its
 * signal there, undici/lib/api/abort-signal.js). The symbol is internal to undici, so it is
 * looked up and may be missing in another version: then an exchange ended while queued is
 * aborted when undici starts it, at the cost of that socket (a test notices: "a request queued
 * for a busy socket", http-transport.test.ts).
 */
export const kQueuedAbort: symbol | undefined = (() => {
  try {
    const symbols = createRequire(import.meta.url)('undici/lib/core/symbols.js') as { kQueuedAbort?: unknown };
    return typeof symbols.kQueuedAbort === 'symbol' ? symbols.kQueuedAbort : undefined;
  } catch {
    return undefined;
  }
})();

// setTimeout overflows (and fires at once) past 2^31-1 ms.
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ExchangeResponse {
  statusCode: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** the body's first bytes: all of it, or more than the snippet keeps (see utf8Snippet) */
  bytes: Buffer;
}

export interface ExchangeOptions {
  /** bytes of the body kept; one chunk more may arrive before the rest is discarded */
  maxBytes: number;
  /**
   * A body up to this long (the kept bytes included) is read to its end, the rest discarded, so
   * that the socket can be reused; a longer one, or one announced longer, is cut off (its socket
   * destroyed) once the kept bytes are in, rather than downloaded.
   */
  drainLimitBytes: number;
  timeoutMs: number;
  /** the attempt's signal: cancel, lease lost, shutdown */
  signal: AbortSignal;
}

export class Exchange implements Dispatcher.DispatchHandler {
  /** the response's status once its headers arrived (also when the body then fails) */
  statusCode: number | null = null;
  readonly response: Promise<ExchangeResponse>;
  private statusText = '';
  private headers: IncomingHttpHeaders = {};
  private chunks: Buffer[] = [];
  private kept = 0;
  private discarded = 0;
  private controller: Dispatcher.DispatchController | null = null;
  /** takes the request out of its client's queue while it waits there (kQueuedAbort) */
  private dequeue: ((reason: Error) => void) | null = null;
  /** why we ended the exchange (deadline, cancel); preferred over what undici reports then */
  private reason: Error | null = null;
  private settled = false;
  private readonly timer: NodeJS.Timeout;
  private resolve!: (response: ExchangeResponse) => void;
  private reject!: (err: unknown) => void;

  constructor(private readonly options: ExchangeOptions) {
    this.response = new Promise<ExchangeResponse>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    options.signal.addEventListener('abort', this, { once: true });
    this.timer = setTimeout(
      () => this.abort(new DeliveryTimeoutError(options.timeoutMs)),
      Math.min(options.timeoutMs, MAX_TIMER_MS),
    );
  }

  /** the attempt's signal fired (an EventListener object: no closure per exchange) */
  handleEvent(): void {
    this.abort(new DeliveryCancelledError(this.options.signal.reason));
  }

  /** The dispatch options for undici: `options` and the hook that lets a queued request go. */
  dispatchOptions(options: Dispatcher.DispatchOptions): Dispatcher.DispatchOptions {
    if (!kQueuedAbort) return options;
    return { ...options, [kQueuedAbort]: (cancel: (reason: Error) => void) => this.queued(cancel) };
  }

  /**
   * Ends the exchange with `reason` now, wherever the request is (see dispatchOptions). Once more
   * than the kept bytes have arrived the response stands (decided), whatever becomes of the rest.
   */
  abort(reason: Error): void {
    if (this.settled) return;
    this.reason = reason;
    if (this.decided) this.succeed();
    else this.fail(reason);
    if (this.controller) this.controller.abort(reason);
    else this.dequeue?.(reason);
  }

  /**
   * More than the kept bytes arrived: the snippet is complete and the outcome is the response's.
   * A deadline, a cancel or a broken socket while the rest drains does not undo it — the target
   * answered, and calling it again would deliver twice.
   */
  private get decided(): boolean {
    return this.kept > this.options.maxBytes;
  }

  /** undici queued the request in a client (again, after a pool's queue): how to take it out. */
  private queued(cancel: (reason: Error) => void): void {
    if (this.reason) cancel(this.reason);
    else this.dequeue = cancel;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.dequeue = null;
    if (this.reason) {
      controller.abort(this.reason);
      return;
    }
    this.controller = controller;
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusText?: string,
  ): void {
    if (statusCode < 200) return; // informational: the response is still to come
    this.statusCode = statusCode;
    this.headers = headers;
    this.statusText = statusText ?? '';
  }

  /** the body's announced length (content-length) passes `limit`; read only for a long body */
  private announcedOver(limit: number): boolean {
    const length = this.headers['content-length'];
    return typeof length === 'string' && Number(length) > limit;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.decided) {
      this.discarded += chunk.length;
    } else {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      if (!this.decided) return;
    }
    const { drainLimitBytes } = this.options;
    if (this.kept + this.discarded > drainLimitBytes || this.announcedOver(drainLimitBytes)) {
      // The outcome is decided by the status; the rest of a long body is not worth the socket.
      this.succeed();
      controller.abort(new Error('response body longer than the drain limit: cut off'));
    }
  }

  onResponseEnd(): void {
    this.succeed();
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, err: Error): void {
    if (this.decided) this.succeed();
    else this.fail(this.reason ?? err);
  }

  private succeed(): void {
    if (this.settled) return;
    if (this.statusCode === null) {
      this.fail(new Error('the response ended without a status'));
      return;
    }
    this.settle();
    const bytes = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.kept);
    this.chunks = [];
    this.resolve({ statusCode: this.statusCode, statusText: this.statusText, headers: this.headers, bytes });
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settle();
    this.chunks = [];
    this.reject(err);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.options.signal.removeEventListener('abort', this);
  }
}
