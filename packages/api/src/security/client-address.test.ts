import { describe, expect, it } from 'vitest';
import { addressKey, clientAddress } from './client-address';

describe('clientAddress', () => {
  it('is the TCP peer, whatever X-Forwarded-For says, unless a proxy is trusted', () => {
    expect(clientAddress({ peer: '203.0.113.7', forwardedFor: '198.51.100.1', trustProxy: false })).toBe('203.0.113.7');
    expect(clientAddress({ peer: '::ffff:203.0.113.7', forwardedFor: undefined, trustProxy: false })).toBe(
      '203.0.113.7',
    );
  });

  it("behind a trusted proxy is the last X-Forwarded-For entry (the proxy's), never the client's own", () => {
    const spoofed = '1.1.1.1, 203.0.113.9';
    expect(clientAddress({ peer: '10.0.0.2', forwardedFor: spoofed, trustProxy: true })).toBe('203.0.113.9');
    expect(clientAddress({ peer: '10.0.0.2', forwardedFor: ['1.1.1.1', '203.0.113.9'], trustProxy: true })).toBe(
      '203.0.113.9',
    );
    // a proxy that sent nothing usable: the peer (the proxy itself)
    expect(clientAddress({ peer: '10.0.0.2', forwardedFor: 'garbage', trustProxy: true })).toBe('10.0.0.2');
    expect(clientAddress({ peer: '10.0.0.2', forwardedFor: undefined, trustProxy: true })).toBe('10.0.0.2');
  });

  it('counts IPv6 per /64 so one host cannot rotate through its own prefix', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:0db8:0001:0002::/64');
    expect(addressKey('2001:db8:1:2:ffff:1:2:3')).toBe('2001:0db8:0001:0002::/64');
    expect(addressKey('::1')).toBe('0000:0000:0000:0000::/64');
    expect(addressKey('[2001:db8::1]')).toBe('2001:0db8:0000:0000::/64');
    expect(addressKey('not an address')).toBeNull();
    expect(clientAddress({ peer: undefined, forwardedFor: undefined, trustProxy: false })).toBeNull();
  });
});

describe('stampedClientAddress', () => {
  it('believes the header only in a process whose web server stamps it', async () => {
    const { markClientAddressStamping, stampedClientAddress } = await import('./client-address');
    expect(stampedClientAddress('203.0.113.7')).toBeNull();
    markClientAddressStamping();
    expect(stampedClientAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(stampedClientAddress('2001:0db8:0001:0002::/64')).toBe('2001:0db8:0001:0002::/64');
    expect(stampedClientAddress('evil, 1.2.3.4')).toBeNull();
    expect(stampedClientAddress(null)).toBeNull();
  });
});
