// IP literals as text: strict parsing of canonical IPv4 and IPv6 (to numbers: IPv4 a 32-bit
// number, IPv6 a 128-bit BigInt), canonical formatting, and parseHostAsIp, which reads a URL
// host the way URL parsers and getaddrinfo do, so unusual spellings ("2130706433", "0x7f.1",
// "[::ffff:127.0.0.1]") become the canonical IPs the SSRF classifier (ssrf.ts) judges.
//
// Parsing is hand-written (no `ip` npm package: CVE-2024-29415 misclassified exactly
// these spellings).

// ---------------------------------------------------------------------------- IPv4

/** Strict dotted-decimal: four parts 0..255, no leading zeros (which some parsers read as octal). */
export function parseIPv4Strict(s: string): number | null {
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
export function parseIPv6(s: string): bigint | null {
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
export function formatV6(n: bigint): string {
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

// --------------------------------------------------------------------------- Hosts

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
