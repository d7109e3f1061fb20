// Pure function tests: nothing here resolves names or opens sockets. `new URL` and
// net.isIP are used only as reference parsers.
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress, parseHostAsIp, type AddressClass } from './ssrf';

const CLASSIFY: ReadonlyArray<readonly [string, AddressClass]> = [
  // IPv4 public
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.216.34', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.167.255.255', 'public'],
  ['192.169.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['198.17.255.255', 'public'],
  ['198.20.0.0', 'public'],
  ['223.255.255.255', 'public'],
  ['11.0.0.0', 'public'],
  ['126.255.255.255', 'public'],
  ['128.0.0.0', 'public'],
  // IPv4 special
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.0.1', 'link-local'],
  ['169.254.255.255', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['192.0.0.192', 'metadata'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['192.0.0.1', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.255', 'documentation'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // IPv6 public
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['2a00:1450:4001:81b::200e', 'public'],
  ['2001:200::1', 'public'],
  ['3ffe::1', 'public'],
  // IPv6 special
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fc00::1', 'unique-local'],
  ['fdff:ffff::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['fd00:ec2::254', 'metadata'],
  ['fd00:ec2::23', 'metadata'],
  ['fd00:ec2::255', 'unique-local'],
  ['2001:db8::1', 'documentation'],
  ['2001:db8:ffff::1', 'documentation'],
  ['3fff::1', 'documentation'],
  // IPv6 carrying IPv4: judged by the embedded address
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:7F00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::127.0.0.1', 'loopback'],
  ['::10.1.2.3', 'private'],
  ['::8.8.8.8', 'public'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['64:ff9b::808:808', 'public'],
  ['64:ff9b:1::1', 'reserved'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:a00:1::1', 'private'],
  ['2002:a9fe:a9fe::', 'metadata'],
  ['2002:808:808::1', 'public'],
  ['::ffff:0:7f00:1', 'reserved'],
  // IPv6 reserved blocks
  ['2001::1', 'reserved'], // Teredo
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ['2001:2::1', 'reserved'], // benchmarking
  ['2001:10::1', 'reserved'], // ORCHID
  ['100::1', 'reserved'], // discard
  ['100::ffff:ffff:ffff:ffff', 'reserved'],
  ['100:0:0:1::', 'reserved'], // outside 100::/64 but still not 2000::/3
  ['4000::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['::2', 'unspecified'], // IPv4-compatible 0.0.0.2
];

describe('classifyAddress', () => {
  it('has a table of well over 60 cases', () => {
    expect(CLASSIFY.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CLASSIFY)('%s -> %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
    expect(isPublicAddress(ip)).toBe(expected === 'public');
  });

  it('only accepts what net.isIP accepts (and nothing unusual)', () => {
    for (const [ip] of CLASSIFY) expect(isIP(ip), ip).not.toBe(0);
  });

  it.each([
    '',
    'localhost',
    'example.com',
    '127.1',
    '0177.0.0.1',
    '010.0.0.1',
    '0x7f000001',
    '2130706433',
    '1.2.3.4.5',
    '256.1.1.1',
    '1.2.3',
    '[::1]',
    ':::',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '12345::1',
    '::ffff:1.2.3',
    '::ffff:01.2.3.4',
    '1.2.3.4::',
    'fe80::1%',
    ' 127.0.0.1',
  ])('throws on non-IP %j', (bad) => {
    expect(() => classifyAddress(bad)).toThrow(TypeError);
    expect(isPublicAddress(bad)).toBe(false);
  });
});

const SPELLINGS: ReadonlyArray<readonly [string, string | null]> = [
  ['127.0.0.1', '127.0.0.1'],
  ['2130706433', '127.0.0.1'],
  ['0x7f000001', '127.0.0.1'],
  ['0X7F000001', '127.0.0.1'],
  ['017700000001', '127.0.0.1'],
  ['0177.0.0.1', '127.0.0.1'],
  ['0177.0000.0000.0001', '127.0.0.1'],
  ['127.1', '127.0.0.1'],
  ['127.0.1', '127.0.0.1'],
  ['0x7f.1', '127.0.0.1'],
  ['0x7f.0.0.0x1', '127.0.0.1'],
  ['127.0.0.1.', '127.0.0.1'],
  ['10.1', '10.0.0.1'],
  ['10.1.258', '10.1.1.2'],
  ['0', '0.0.0.0'],
  ['0x', '0.0.0.0'],
  ['0x.0x.0', '0.0.0.0'],
  ['2852039166', '169.254.169.254'],
  ['0xa9fea9fe', '169.254.169.254'],
  ['0251.0376.0251.0376', '169.254.169.254'],
  ['169.254.43518', '169.254.169.254'],
  ['4294967295', '255.255.255.255'],
  ['１２７.０.０.１', '127.0.0.1'], // fullwidth digits
  ['127。0。0。1', '127.0.0.1'], // ideographic full stop
  ['%31%32%37.0.0.1', '127.0.0.1'],
  ['[::1]', '::1'],
  ['::1', '::1'],
  ['[0:0:0:0:0:0:0:1]', '::1'],
  ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
  ['[::FFFF:A9FE:A9FE]', '::ffff:a9fe:a9fe'],
  ['[2001:DB8:0:0:1:0:0:1]', '2001:db8::1:0:0:1'],
  ['[fe80:0:0:0:0:0:0:0]', 'fe80::'],
  ['[1:0:0:2:0:0:0:3]', '1:0:0:2::3'],
  ['[1:0:1:0:1:0:1:0]', '1:0:1:0:1:0:1:0'],
  ['example.com', null],
  ['Example.COM', null],
  ['localhost', null],
  ['0x7f.example', null],
  ['1.2.3.example', null],
  ['127.0.0.1.nip.io', null],
  ['xn--nxasmq6b.com', null],
  ['', null],
];

const INVALID_HOSTS: readonly string[] = [
  '1.2.3.09', // not octal, not decimal: URL parsers reject it
  '09.1',
  '1.2.3.4.5',
  '256.0.0.1',
  '1.256.1',
  '4294967296',
  '0x100000000',
  'foo.0x1',
  'a.b.c.d.1',
  '[::1',
  '::1]',
  '[127.0.0.1]',
  '[fe80::1%25eth0]',
  'fe80::1%eth0',
  'example.com:8080',
  '127.0.0.1 x',
  '%zz',
];

describe('parseHostAsIp', () => {
  it.each(SPELLINGS)('%j -> %j', (host, expected) => {
    expect(parseHostAsIp(host)).toBe(expected);
  });

  it.each(INVALID_HOSTS)('throws for invalid IP-looking host %j', (host) => {
    expect(() => parseHostAsIp(host)).toThrow(TypeError);
  });

  // WHATWG URL is the parser fetch/undici use, so our answer must agree with it
  // whenever it sees an IP, and must never invent an IP where it sees none.
  function referenceHost(host: string): string | 'name' | 'error' {
    try {
      const h = new URL(`http://${host}/`).hostname;
      const bare = h.startsWith('[') ? h.slice(1, -1) : h;
      return isIP(bare) ? bare : 'name';
    } catch {
      return 'error';
    }
  }

  function agreesWithUrl(host: string): void {
    // We also accept unbracketed IPv6 ("::1"), which a URL only takes in brackets.
    const ref = referenceHost(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
    let ours: string | null | 'error';
    try {
      ours = parseHostAsIp(host);
    } catch {
      ours = 'error';
    }
    if (ref === 'name') expect(ours, host).toBeNull();
    else if (ref === 'error') expect(ours === null || ours === 'error', host).toBe(true);
    else expect(ours, host).toBe(ref);
  }

  it('agrees with the WHATWG URL parser on every table entry', () => {
    for (const [host] of SPELLINGS) agreesWithUrl(host);
  });

  it('throws only for hosts the WHATWG URL parser also rejects', () => {
    for (const host of INVALID_HOSTS) {
      const wrapped = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
      expect(referenceHost(wrapped), host).toBe('error');
    }
  });

  it('agrees with the WHATWG URL parser on randomly spelled IPv4 addresses', () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const spell = (v: number): string =>
      [() => v.toString(10), () => `0${v.toString(8)}`, () => `0x${v.toString(16)}`][rnd(3)]!();
    for (let i = 0; i < 2000; i++) {
      const n = rnd(2 ** 16) * 2 ** 16 + rnd(2 ** 16);
      const bytes = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
      const count = 1 + rnd(4);
      const head = bytes.slice(0, count - 1);
      const rest = bytes.slice(count - 1).reduce((a, b) => a * 256 + b, 0);
      const host = [...head, rest].map(spell).join('.') + (rnd(5) === 0 ? '.' : '');
      agreesWithUrl(host);
      expect(parseHostAsIp(host), host).toBe(bytes.join('.'));
    }
  });

  it('feeds classifyAddress: unusual spellings of internal addresses are caught', () => {
    for (const host of [
      '2130706433',
      '0x7f.1',
      '0251.0376.0251.0376',
      '[::ffff:7f00:1]',
      '[::ffff:a9fe:a9fe]',
      '10.1',
    ]) {
      expect(isPublicAddress(parseHostAsIp(host)!), host).toBe(false);
    }
    expect(classifyAddress(parseHostAsIp('0xa9fea9fe')!)).toBe('metadata');
    expect(classifyAddress(parseHostAsIp('[::ffff:a9fe:a9fe]')!)).toBe('metadata');
  });
});
