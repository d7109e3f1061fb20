// Which client a request comes from, for throttling. The TCP peer's address, unless the
// operator says a reverse proxy stands in front (BELFRY_TRUST_PROXY=1): then the address the
// proxy appended last to X-Forwarded-For, the one it saw. Everything before that entry was
// written by the client and is never believed. IPv6 addresses count per /64 (one host
// usually holds a whole /64), IPv4-mapped IPv6 as the IPv4 address.
import { isIP } from 'node:net';

export interface ClientAddressInput {
  /** socket.remoteAddress */
  peer: string | undefined;
  /** the X-Forwarded-For header(s) as received */
  forwardedFor: string | string[] | undefined;
  trustProxy: boolean;
}

function expandV6(address: string): string[] | null {
  const [head = '', tail, ...rest] = address.split('::');
  if (rest.length) return null;
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  return [...left, ...Array(tail === undefined ? 0 : missing).fill('0'), ...right];
}

/** The throttling key of one IP address, or null when it is not one. */
export function addressKey(raw: string): string | null {
  const address =
    raw
      .trim()
      .replace(/^\[|\]$/g, '')
      .split('%')[0] ?? '';
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIP(mapped[1] as string) === 4) return mapped[1] as string;
  const groups = expandV6(address.toLowerCase());
  if (!groups) return null;
  return `${groups
    .slice(0, 4)
    .map((g) => g.padStart(4, '0'))
    .join(':')}::/64`;
}

/** The client's address key, or null when neither the peer nor a trusted proxy names one. */
export function clientAddress({ peer, forwardedFor, trustProxy }: ClientAddressInput): string | null {
  if (trustProxy && forwardedFor !== undefined) {
    const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const last = entries.at(-1);
    const key = last === undefined ? null : addressKey(last);
    if (key) return key;
  }
  return peer === undefined ? null : addressKey(peer);
}

/**
 * The web server (scripts/web-server.ts) writes each request's client address into this
 * header, replacing whatever the client sent in it, and marks the process with the symbol.
 * The header is believed only in a process so marked: under a bare `next start` or
 * `next dev` anyone could write it, so the address is then unknown.
 */
export const CLIENT_ADDRESS_HEADER = 'x-belfry-client-address';
const STAMPING = Symbol.for('belfry.web-server.stamps-client-address');

export function markClientAddressStamping(): void {
  (globalThis as Record<symbol, unknown>)[STAMPING] = true;
}

/** The client address the web server stamped on a request, or null when nothing trustworthy did. */
export function stampedClientAddress(header: string | null | undefined): string | null {
  if ((globalThis as Record<symbol, unknown>)[STAMPING] !== true) return null;
  return header && /^[0-9a-f.:/]{2,64}$/i.test(header) ? header : null;
}
