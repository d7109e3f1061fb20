// Connections opened before they are needed. When runs claimed ahead of their time are prepared
// (HttpHandler.prepare, ~100 ms before they are due), the tenant's pool for their origin is
// topped up, in the background, to as many sockets as it has requests about to start (up to its
// per-origin cap); when undici then asks for a connection, it gets one of those at once instead
// of connecting (and, for https, shaking hands) on the due instant. Sockets kept from earlier
// deliveries count, so a steady load opens nothing more. Without it, a burst to an origin the
// pool had no sockets for — the first of the day, or a job every minute, past the keep-alive —
// paid every connect between its due instant and its requests (in the bench's first steady
// second, connects were ~16 % of an engine's CPU). Sockets are opened through the same guarded
// connector as any other, so the SSRF guard decides as usual; one nobody takes within `idleMs`
// is closed. An origin that answers over HTTP/2 carries a burst as streams on one connection:
// for it (and for an https origin not yet seen) one socket is opened ahead, not one per request.
import { isIP, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';

/** Where a socket goes: what undici passes its connector for an origin, as a key. */
export interface OriginOf {
  protocol: string;
  hostname: string;
  port: string;
}

interface OriginState {
  /** sockets of this tenant and origin connected and not closed (in the pool or ready) */
  live: number;
  opening: number;
  ready: { socket: Socket; timer: NodeJS.Timeout }[];
  /** prepared requests not yet sent, by start time (ms) */
  expected: Map<number, number>;
  /** their sum */
  expectedCount: number;
  prunedAt: number;
  /** what the origin's last connection spoke: h2 (one socket is enough) or not; unknown before */
  h2?: boolean;
}

/** An expected request not sent this long after its start no longer asks for a socket. */
const EXPECTED_FOR_MS = 2_000;

const PRUNE_EVERY_MS = 250;
const noop = () => {};

/** Forgets the expected requests whose start is over EXPECTED_FOR_MS ago. */
function prune(state: OriginState, now: number): void {
  if (now - state.prunedAt < PRUNE_EVERY_MS) return;
  state.prunedAt = now;
  for (const [t, n] of state.expected) {
    if (t > now - EXPECTED_FOR_MS) continue;
    state.expected.delete(t);
    state.expectedCount -= n;
  }
}

/**
 * The key of a connection's destination: what undici passes its connector (hostname without
 * brackets, port '' for the default), with the name a TLS connection is made for as
 * buildConnector decides it (the given servername, else the host name, none for an IP address).
 */
function keyOf(o: { protocol: string; hostname: string; port: string; servername?: string | null }): string {
  const hostname = o.hostname.startsWith('[') ? o.hostname.slice(1, -1) : o.hostname;
  const servername = o.servername || (isIP(hostname) ? '' : hostname);
  return `${o.protocol}//${hostname}:${o.port}/${servername}`;
}

export class ReadySockets {
  private readonly tenants = new Map<string, Map<string, OriginState>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly connect: buildConnector.connector,
    private readonly options: { perOrigin: number; idleMs: number },
  ) {
    // expectations of requests never sent (their runs were cancelled) expire here
    this.sweeper = setInterval(() => this.sweep(), 10_000);
    this.sweeper.unref();
  }

  /** The connector of one tenant's pool: a ready socket for the origin if there is one, else a new connection. */
  connectorFor(tenantId: string): buildConnector.connector {
    return (opts, callback) => {
      const state = this.tenants.get(tenantId)?.get(keyOf(opts));
      const ready = state && this.takeReady(state);
      if (ready) {
        process.nextTick(() => callback(null, ready));
        return ready;
      }
      return this.open(tenantId, keyOf(opts), opts, callback);
    };
  }

  /**
   * One more request of the tenant to `origin` will start at `startsAt` (ms): opens sockets, in
   * the background, until the tenant has one for each such request (up to the per-origin cap).
   * Failures are ignored: the request connects (and reports) on its own.
   */
  expect(tenantId: string, origin: OriginOf, startsAt: number, now: number): void {
    // as undici's client passes them (client.js connect)
    const opts = {
      protocol: origin.protocol,
      hostname: origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname,
      host: origin.port ? `${origin.hostname}:${origin.port}` : origin.hostname,
      port: origin.port,
    };
    const key = keyOf(opts);
    const state = this.state(tenantId, key);
    prune(state, now);
    state.expected.set(startsAt, (state.expected.get(startsAt) ?? 0) + 1);
    state.expectedCount++;
    const oneIsEnough = state.h2 === true || (state.h2 === undefined && origin.protocol === 'https:');
    const wanted = Math.min(oneIsEnough ? 1 : this.options.perOrigin, state.expectedCount);
    for (let missing = wanted - state.live - state.opening; missing > 0; missing--) {
      try {
        this.open(tenantId, key, opts, (err, socket) => {
          if (!err && socket) this.putReady(tenantId, key, state, socket);
        });
      } catch {
        return; // the request connects (and reports) on its own
      }
    }
  }

  /** A prepared request to `origin` is being sent: it no longer needs a socket opened for it. */
  started(tenantId: string, origin: OriginOf, startsAt: number): void {
    const key = keyOf(origin);
    const state = this.tenants.get(tenantId)?.get(key);
    if (!state) return;
    const n = state.expected.get(startsAt);
    if (n !== undefined) {
      if (n > 1) state.expected.set(startsAt, n - 1);
      else state.expected.delete(startsAt);
      state.expectedCount--;
    }
    this.dropIfUnused(tenantId, key, state);
  }

  /** Closes the ready sockets of a tenant whose pool was closed, and forgets it. */
  forget(tenantId: string): void {
    const origins = this.tenants.get(tenantId);
    if (!origins) return;
    this.tenants.delete(tenantId);
    for (const state of origins.values()) {
      for (const { socket, timer } of state.ready.splice(0)) {
        clearTimeout(timer);
        socket.destroy();
      }
    }
  }

  /** Forgets expectations past their time, and the origins nothing refers to any more. */
  sweep(now = Date.now()): void {
    for (const [tenantId, origins] of [...this.tenants]) {
      for (const [key, state] of [...origins]) {
        prune(state, now);
        this.dropIfUnused(tenantId, key, state);
      }
    }
  }

  /** Closes every ready socket. */
  close(): void {
    clearInterval(this.sweeper);
    for (const tenantId of [...this.tenants.keys()]) this.forget(tenantId);
  }

  /** sockets being opened, over every tenant and origin (tests) */
  get openingCount(): number {
    let n = 0;
    for (const origins of this.tenants.values()) for (const state of origins.values()) n += state.opening;
    return n;
  }

  /** tenants with state kept (tests) */
  get tenantCount(): number {
    return this.tenants.size;
  }

  private state(tenantId: string, key: string): OriginState {
    let origins = this.tenants.get(tenantId);
    if (!origins) {
      origins = new Map();
      this.tenants.set(tenantId, origins);
    }
    let state = origins.get(key);
    if (!state) {
      state = { live: 0, opening: 0, ready: [], expected: new Map(), expectedCount: 0, prunedAt: 0 };
      origins.set(key, state);
    }
    return state;
  }

  /** Connects through the guarded connector, counting the socket while it is open. */
  private open(
    tenantId: string,
    key: string,
    opts: buildConnector.Options,
    callback: buildConnector.Callback,
  ): ReturnType<buildConnector.connector> {
    const state = this.state(tenantId, key);
    state.opening++;
    const connected: buildConnector.Callback = (err, socket) => {
      state.opening--;
      if (socket) {
        state.live++;
        state.h2 = (socket as TLSSocket).alpnProtocol === 'h2';
        socket.once('close', () => {
          state.live--;
          const i = state.ready.findIndex((r) => r.socket === socket);
          if (i >= 0) clearTimeout(state.ready.splice(i, 1)[0]!.timer);
          this.dropIfUnused(tenantId, key, state);
        });
      } else this.dropIfUnused(tenantId, key, state);
      (callback as (err: Error | null, socket: Socket | null) => void)(err, socket);
    };
    try {
      return this.connect(opts, connected);
    } catch (err) {
      state.opening--;
      this.dropIfUnused(tenantId, key, state);
      throw err;
    }
  }

  private putReady(tenantId: string, key: string, state: OriginState, socket: Socket): void {
    // The tenant's pool was closed meanwhile (forget): nobody will take it.
    if (this.tenants.get(tenantId)?.get(key) !== state || socket.destroyed) {
      socket.destroy();
      return;
    }
    // Errors of an unused socket (a reset) end it like a close; nobody else listens yet.
    socket.on('error', noop);
    const timer = setTimeout(() => socket.destroy(), this.options.idleMs);
    timer.unref();
    state.ready.push({ socket, timer });
  }

  private takeReady(state: OriginState): Socket | undefined {
    for (;;) {
      const entry = state.ready.pop();
      if (!entry) return undefined;
      clearTimeout(entry.timer);
      entry.socket.off('error', noop);
      // closed by the server meanwhile (its 'close' may not have been emitted yet)
      if (!entry.socket.destroyed && entry.socket.writable && entry.socket.readable) return entry.socket;
      entry.socket.destroy();
    }
  }

  private dropIfUnused(tenantId: string, key: string, state: OriginState): void {
    if (state.live > 0 || state.opening > 0 || state.ready.length > 0 || state.expectedCount > 0) return;
    const origins = this.tenants.get(tenantId);
    if (origins?.get(key) !== state) return;
    origins.delete(key);
    if (!origins.size) this.tenants.delete(tenantId);
  }
}
