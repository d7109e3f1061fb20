// The SSRF guard's address classifier: decides whether an IP literal is a public
// internet address a customer webhook may target, and normalises unusual host spellings
// ("2130706433", "0x7f.1", "[::ffff:127.0.0.1]") to canonical IPs so they can't slip
// past a check as "DNS names". Pure: DNS resolution and connecting happen elsewhere,
// and the guard must classify the address actually connected to, not just the host.
//
// Parsing and host normalisation live in ip-literal.ts; parseHostAsIp is exported here too.
import { parseIPv4Strict, parseIPv6 } from './ip-literal';

export { parseHostAsIp } from './ip-literal';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'cgnat'
  | 'broadcast'
  | 'documentation';

// ---------------------------------------------------------------------------- IPv4

function v4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function inV4(n: number, base: number, prefixLen: number): boolean {
  if (prefixLen === 0) return true;
  return (n ^ base) >>> (32 - prefixLen) === 0;
}

// Cloud instance-metadata endpoints: reachable from inside a VM without credentials and
// the classic SSRF prize, so they get their own class for clearer refusal messages.
const V4_METADATA = new Set([
  v4(169, 254, 169, 254), // AWS, GCP, Azure, OCI, DigitalOcean, ... IMDS
  v4(169, 254, 170, 2), // AWS ECS task metadata / credentials
  v4(169, 254, 170, 23), // AWS EKS Pod Identity agent
  v4(100, 100, 100, 200), // Alibaba Cloud
  v4(168, 63, 129, 16), // Azure WireServer
  v4(192, 0, 0, 192), // Oracle Cloud (legacy)
]);

// First match wins, so more specific ranges come before the blocks containing them.
const V4_RANGES: ReadonlyArray<readonly [number, number, AddressClass]> = [
  [v4(0, 0, 0, 0), 8, 'unspecified'], // "this network"; 0.0.0.0 reaches localhost on Linux
  [v4(255, 255, 255, 255), 32, 'broadcast'],
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(169, 254, 0, 0), 16, 'link-local'],
  [v4(100, 64, 0, 0), 10, 'cgnat'],
  [v4(192, 0, 2, 0), 24, 'documentation'], // TEST-NET-1
  [v4(198, 51, 100, 0), 24, 'documentation'], // TEST-NET-2
  [v4(203, 0, 113, 0), 24, 'documentation'], // TEST-NET-3
  [v4(192, 0, 0, 0), 24, 'reserved'], // IETF protocol assignments
  [v4(192, 88, 99, 0), 24, 'reserved'], // deprecated 6to4 relay anycast
  [v4(198, 18, 0, 0), 15, 'reserved'], // benchmarking
  [v4(224, 0, 0, 0), 4, 'multicast'],
  [v4(240, 0, 0, 0), 4, 'reserved'], // class E
];

function classifyV4(n: number): AddressClass {
  if (V4_METADATA.has(n)) return 'metadata';
  for (const [base, len, cls] of V4_RANGES) if (inV4(n, base, len)) return cls;
  return 'public';
}

// ---------------------------------------------------------------------------- IPv6

const V6_METADATA = new Set([
  0xfd000ec2_00000000_00000000_00000254n, // AWS IMDS over IPv6 (fd00:ec2::254)
  0xfd000ec2_00000000_00000000_00000023n, // AWS EKS Pod Identity agent (fd00:ec2::23)
]);

const low32 = (n: bigint): number => Number(n & 0xffffffffn);

function classifyV6(n: bigint): AddressClass {
  if (n === 0n) return 'unspecified';
  if (n === 1n) return 'loopback';
  if (V6_METADATA.has(n)) return 'metadata';
  const hi96 = n >> 32n;
  // Forms that carry an IPv4 address are judged by it: the OS or a translator may turn
  // them into an IPv4 connection (::ffff:127.0.0.1 connects to localhost on dual-stack
  // sockets), so "::ffff:7f00:1 is global-looking IPv6" must not be the answer.
  if (hi96 === 0n) return classifyV4(low32(n)); // ::a.b.c.d, deprecated IPv4-compatible
  if (hi96 === 0xffffn) return classifyV4(low32(n)); // ::ffff:a.b.c.d, IPv4-mapped
  if (hi96 === 0x0064ff9b_00000000_00000000n) return classifyV4(low32(n)); // 64:ff9b::/96 NAT64
  if (hi96 === 0xffff0000n) return 'reserved'; // ::ffff:0:a.b.c.d, SIIT IPv4-translated
  if (n >> 80n === 0x0064ff9b0001n) return 'reserved'; // 64:ff9b:1::/48, local-use NAT64
  if (n >> 64n === 0x0100_0000_0000_0000n) return 'reserved'; // 100::/64 discard-only
  const top16 = Number(n >> 112n);
  const top32 = Number(n >> 96n);
  if (top16 === 0x2002) return classifyV4(Number((n >> 80n) & 0xffffffffn)); // 6to4 2002:V4ADDR::/48
  if (top32 === 0x20010db8) return 'documentation'; // 2001:db8::/32
  if ((top32 & 0xfffff000) === 0x3fff0000) return 'documentation'; // 3fff::/20 (RFC 9637)
  // 2001::/23 IETF protocol assignments: Teredo (2001::/32), benchmarking, ORCHID, ...
  if (top32 >>> 9 === 0x20010000 >>> 9) return 'reserved';
  if ((top16 & 0xfe00) === 0xfc00) return 'unique-local'; // fc00::/7
  if ((top16 & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((top16 & 0xffc0) === 0xfec0) return 'private'; // fec0::/10, deprecated site-local
  if ((top16 & 0xff00) === 0xff00) return 'multicast'; // ff00::/8
  // Only 2000::/3 is allocated as global unicast; anything else is not a valid target.
  if ((top16 & 0xe000) === 0x2000) return 'public';
  return 'reserved';
}

// ----------------------------------------------------------------------- Public API

/**
 * Classifies a canonical IPv4 or IPv6 literal (as DNS or net.isIP gives it; an IPv6
 * zone id such as "%eth0" is ignored). Throws on anything else, including unusual
 * IPv4 spellings like "0177.0.0.1": run hosts through parseHostAsIp first.
 */
export function classifyAddress(ip: string): AddressClass {
  if (typeof ip === 'string') {
    const n4 = parseIPv4Strict(ip);
    if (n4 !== null) return classifyV4(n4);
    const zone = ip.indexOf('%');
    const n6 = parseIPv6(zone >= 0 && zone < ip.length - 1 ? ip.slice(0, zone) : ip);
    if (n6 !== null) return classifyV6(n6);
  }
  throw new TypeError(`not an IP address: ${JSON.stringify(ip)}`);
}

/** True only for public addresses. Fails closed: anything unparseable is not public. */
export function isPublicAddress(ip: string): boolean {
  try {
    return classifyAddress(ip) === 'public';
  } catch {
    return false;
  }
}
