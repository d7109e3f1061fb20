// The SSRF guard for outbound deliveries: decides whether a target may be connected to,
// at the only moment that matters — when the socket is opened. Checking a URL's host
// up front and letting the HTTP client resolve it again later is the classic DNS-rebinding
// hole (first answer public, second answer 127.0.0.1), so the guard *is* the resolver:
// the lookup function handed to the socket resolves, classifies every answer and returns
// only addresses it has checked. The address classifier itself is pure and lives in
// @belfry/core (classifyAddress, parseHostAsIp).
//
// Node's net.connect skips `lookup` entirely when the host is already an IP literal, so
// literals are checked separately: up front by checkTarget (clear error, no pool created)
// and again in the connector wrapper, which sees the exact host every socket is opened to.
import { lookup as dnsLookup } from 'node:dns/promises';
import net, { type LookupFunction } from 'node:net';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { buildConnector } from 'undici';
import { classifyAddress, parseHostAsIp, type AddressClass } from '@belfry/core';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a DNS name to every address it has (A and AAAA). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardOptions {
  /** development only: lets loopback/private/link-local targets through */
  allowPrivate: boolean;
  /** defaults to the system resolver (getaddrinfo, so /etc/hosts applies) */
  resolver?: Resolver;
}

const ALLOW_HINT = 'set BELFRY_ALLOW_PRIVATE_TARGETS=1 for development';

/** The target is (or resolves to) an address deliveries may not reach. Not retryable. */
export class TargetRefusedError extends Error {
  readonly code = 'ERR_BELFRY_TARGET_REFUSED';
  readonly kind = 'refused' as const;
  constructor(
    message: string,
    readonly address: string,
    readonly addressClass: AddressClass | 'unparseable',
  ) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

/** The target URL itself is unusable (scheme, credentials, malformed host). Not retryable. */
export class InvalidTargetError extends Error {
  readonly code = 'ERR_BELFRY_INVALID_TARGET';
  readonly kind = 'invalid' as const;
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTargetError';
  }
}

function classOf(ip: string): AddressClass | 'unparseable' {
  try {
    return classifyAddress(ip);
  } catch {
    return 'unparseable'; // fail closed: an answer we can't read is not a public address
  }
}

/** Throws TargetRefusedError unless `ip` is public (or private targets are allowed). */
function assertAllowed(ip: string, host: string, options: GuardOptions, literal = host === ip): void {
  if (options.allowPrivate) return;
  const cls = classOf(ip);
  if (cls === 'public') return;
  // The message reaches whoever can read the run (viewers too), so a name's DNS answer stays
  // out of it: naming internal addresses would make the guard an oracle for internal DNS. The
  // address and its class travel on the error for the engine's own logs.
  const what = literal ? `target address ${ip} (${cls})` : `target ${host} does not resolve to a public address`;
  throw new TargetRefusedError(`refused: ${what}; ${ALLOW_HINT}`, ip, cls);
}

/** Parses a host as an IP literal in any spelling; a malformed IP-looking host is invalid. */
function literalIp(host: string): string | null {
  try {
    return parseHostAsIp(host);
  } catch {
    throw new InvalidTargetError(`invalid host ${JSON.stringify(host)}`);
  }
}

/**
 * Validates a delivery URL before anything is dispatched: http/https only, no embedded
 * credentials, and an IP-literal host (any spelling) must be allowed. Returns the
 * canonical IP for literal hosts, null for DNS names (those are checked at connect time
 * by the guarded lookup, against the addresses actually connected to).
 */
export function checkTarget(url: URL, options: GuardOptions): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidTargetError(`unsupported URL scheme ${JSON.stringify(url.protocol)}: only http and https`);
  }
  // Userinfo would be silently dropped (undici takes origin + path), sending the request
  // without the credentials the customer thought they configured.
  if (url.username !== '' || url.password !== '') {
    throw new InvalidTargetError('credentials in the URL are not supported; use an authorization header');
  }
  const ip = literalIp(url.hostname);
  if (ip !== null) assertAllowed(ip, ip, options);
  return ip;
}

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true });

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    syscall: 'getaddrinfo',
    hostname,
  });
}

/**
 * Resolves `hostname` and returns the addresses to connect to, every one of them checked.
 * If *any* answer is not allowed the whole host is refused: a name that mixes public and
 * internal answers is either misconfigured or a rebinding attempt, and picking the
 * "good" one would make delivery depend on answer order.
 */
export async function resolveChecked(
  hostname: string,
  family: number,
  options: GuardOptions,
): Promise<ResolvedAddress[]> {
  const literal = literalIp(hostname);
  const answers =
    literal !== null
      ? [{ address: literal, family: net.isIP(literal) }]
      : await (options.resolver ?? systemResolver)(hostname);
  for (const a of answers) assertAllowed(a.address, hostname, options, literal !== null);
  const checked = answers
    .map((a) => ({ address: a.address, family: net.isIP(a.address) }))
    .filter((a) => a.family !== 0 && (family === 0 || a.family === family));
  if (checked.length === 0) throw notFound(hostname);
  return checked;
}

type LookupCallback = Parameters<LookupFunction>[2];

/**
 * A `lookup` for net.connect / tls.connect (and so for undici's connector) that only ever
 * hands the socket addresses that passed the guard. Honours `options.all` (Node asks for
 * all addresses when Happy Eyeballs / autoSelectFamily is on, the default since Node 20)
 * and `options.family`.
 */
export function createGuardedLookup(options: GuardOptions): LookupFunction {
  return (hostname: string, lookupOptions: LookupOptions | LookupCallback, maybeCallback?: LookupCallback) => {
    // dns.lookup also accepts (hostname, callback) and (hostname, family, callback).
    const callback = (typeof lookupOptions === 'function' ? lookupOptions : maybeCallback)!;
    const opts: LookupOptions =
      typeof lookupOptions === 'object' && lookupOptions !== null
        ? lookupOptions
        : typeof lookupOptions === 'number'
          ? { family: lookupOptions }
          : {};
    const family =
      opts.family === 4 || opts.family === 'IPv4' ? 4 : opts.family === 6 || opts.family === 'IPv6' ? 6 : 0;
    const all = opts.all === true;

    resolveChecked(hostname, family, options).then(
      // nextTick so an exception thrown by the callback surfaces like any callback
      // exception instead of turning into an unhandled rejection of this promise.
      (addresses) =>
        process.nextTick(() => {
          if (all) callback(null, addresses as LookupAddress[]);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        }),
      (err: NodeJS.ErrnoException) => process.nextTick(() => callback(err, all ? [] : '')),
    );
  };
}

export interface GuardedConnectorOptions extends GuardOptions {
  /** TCP/TLS connect timeout in ms */
  connectTimeoutMs?: number;
}

/**
 * An undici connector (the `connect` option of Agent/Pool/Client) that opens sockets
 * through the guarded lookup and refuses IP-literal hosts, which never reach a lookup.
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const connect = buildConnector({
    lookup: createGuardedLookup(options),
    timeout: options.connectTimeoutMs ?? 10_000,
  });
  return (connectOptions, callback) => {
    const { hostname } = connectOptions;
    if (net.isIP(hostname) !== 0) {
      try {
        assertAllowed(hostname, hostname, options);
      } catch (err) {
        process.nextTick(() => callback(err as Error, null));
        return;
      }
    }
    // undici uses the returned socket to cancel a connect attempt when its request is
    // aborted, so pass it through even though the type says void.
    return connect(connectOptions, callback);
  };
}
