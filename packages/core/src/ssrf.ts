// The SSRF guard's address classifier: decides whether an IP literal is a public
// internet address a customer webhook may target, and normalises unusual host spellings
// ("2130706433", "0x7f.1", "[::ffff:127.0.0.1]") to canonical IPs so they can't slip
// past a check as "DNS names". Pure: DNS resolution and connecting happen elsewhere,
// and the guard must classify the address actually connected to, not just the host.
//
// Parsing is hand-written (no `ip` npm package: CVE-2024-29415 misclassified exactly
// these spellings). IPv4 is a 32-bit number, IPv6 a 128-bit BigInt.

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

/** Strict dotted-decimal: four parts 0..255, no leading zeros (which some parsers read as octal). */
function parseIPv4Strict(s: string): number | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^(?:0|[1-9]\d{0,2})$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

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

function formatV4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

// ---------------------------------------------------------------------------- IPv6

function parseGroups(part: string, allowV4Tail: boolean): number[] | null {
  if (part === '') return [];
  const groups = part.split(':');
  const out: number[] = [];
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!;
    if (allowV4Tail && i === groups.length - 1 && g.includes('.')) {
      const n = parseIPv4Strict(g);
      if (n === null) return null;
      out.push(n >>> 16, n & 0xffff);
    } else if (/^[0-9a-f]{1,4}$/i.test(g)) {
      out.push(parseInt(g, 16));
    } else {
      return null;
    }
  }
  return out;
}

/** RFC 4291 text form, with optional trailing dotted quad. No zone id. */
function parseIPv6(s: string): bigint | null {
  const gap = s.indexOf('::');
  if (gap !== s.lastIndexOf('::')) return null; // at most one "::" (also rejects ":::")
  let groups: number[];
  if (gap < 0) {
    const all = parseGroups(s, true);
    if (all === null || all.length !== 8) return null;
    groups = all;
  } else {
    const head = parseGroups(s.slice(0, gap), false);
    const tail = parseGroups(s.slice(gap + 2), true);
    if (head === null || tail === null || head.length + tail.length > 7) return null;
    groups = [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** WHATWG URL / RFC 5952 style: lowercase, no leading zeros, longest zero run (>= 2) as "::". */
function formatV6(n: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

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

/** WHATWG URL "IPv4 number parser": 0x → hex, leading 0 → octal, else decimal. */
function parseIPv4Number(part: string): number | null {
  if (part === '') return null;
  let s = part;
  let radix = 10;
  if (s.length >= 2 && (s.startsWith('0x') || s.startsWith('0X'))) {
    s = s.slice(2);
    radix = 16;
  } else if (s.length >= 2 && s.startsWith('0')) {
    s = s.slice(1);
    radix = 8;
  }
  if (s === '') return 0;
  const digits = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!digits.test(s)) return null;
  return parseInt(s, radix); // may be a huge float; range checks below reject it
}

function invalidHost(host: string): never {
  throw new TypeError(`invalid host: ${JSON.stringify(host)}`);
}

/**
 * Parses a URL host the way the WHATWG URL parser (used by fetch/undici) and
 * inet_aton (used by getaddrinfo) would, returning the canonical dotted IPv4 for
 * "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1", "127.0.0.1." and friends,
 * the canonical IPv6 (no brackets) for "[::1]" or "::1", or null for a DNS name.
 *
 * Throws TypeError for hosts that look like IP addresses but are invalid ("1.2.3.09",
 * "1.2.3.4.5", "256.0.0.1", "[::1%eth0]", "host:port"): URL parsers reject them, and
 * treating them as DNS names would leave their fate to whatever parser sees them next.
 *
 * Fullwidth digits and ideographic full stops are folded first (NFKC, as URL parsing
 * does via IDNA), as is percent-encoding, since "%31%32%37.0.0.1" is 127.0.0.1 to a
 * URL parser.
 */
export function parseHostAsIp(host: string): string | null {
  if (typeof host !== 'string') return invalidHost(String(host));
  if (host.startsWith('[') || host.endsWith(']')) {
    const inner = host.startsWith('[') && host.endsWith(']') ? parseIPv6(host.slice(1, -1)) : null;
    return inner === null ? invalidHost(host) : formatV6(inner);
  }
  let h = host;
  if (h.includes('%')) {
    try {
      h = decodeURIComponent(h);
    } catch {
      return invalidHost(host);
    }
  }
  h = h
    .normalize('NFKC')
    .replace(/[\u3002\uff0e\uff61]/g, '.')
    .toLowerCase();
  // Whitespace is never valid in a host, and inet_aton ignores everything after it
  // ("127.0.0.1 x" is 127.0.0.1 to getaddrinfo), so refuse rather than call it a name.
  if (/\s/.test(h)) return invalidHost(host);
  if (h.includes(':')) {
    const n6 = parseIPv6(h);
    return n6 === null ? invalidHost(host) : formatV6(n6);
  }

  const parts = h.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop(); // "127.0.0.1."
  const last = parts[parts.length - 1]!;
  const endsInNumber = /^\d+$/.test(last) || parseIPv4Number(last) !== null;
  if (!endsInNumber) return null; // a DNS name, e.g. "example.com" or "0x7f.example"
  if (parts.length > 4) return invalidHost(host);

  const numbers: number[] = [];
  for (const p of parts) {
    const n = parseIPv4Number(p);
    if (n === null) return invalidHost(host);
    numbers.push(n);
  }
  // All but the last part are single bytes; the last fills the remaining bytes
  // ("127.1" = 127.0.0.1, "10.1.258" = 10.1.1.2).
  const lastValue = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return invalidHost(host);
  if (lastValue >= 256 ** (5 - parts.length)) return invalidHost(host);
  const value = numbers.reduce((acc, n, i) => acc + n * 256 ** (3 - i), 0) + lastValue;
  return formatV4(value);
}
