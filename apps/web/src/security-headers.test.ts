import { describe, expect, it } from 'vitest';
import { publicUrlIsHttps, securityHeaders } from './security-headers';

describe('securityHeaders', () => {
  it('gives pages a same-origin CSP that forbids framing, and a referrer policy', () => {
    const h = securityHeaders({ https: false, dev: false, page: true });
    const csp = h['content-security-policy'] ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/https?:\/\//);
    expect(h['referrer-policy']).toBe('same-origin');
    expect(h['x-frame-options']).toBe('DENY');
    expect(h['strict-transport-security']).toBeUndefined();
  });

  it('sends HSTS only when the public URL is https', () => {
    expect(securityHeaders({ https: true, dev: false, page: true })['strict-transport-security']).toMatch(
      /^max-age=\d+/,
    );
    expect(publicUrlIsHttps('https://belfry.example.com')).toBe(true);
    expect(publicUrlIsHttps('http://localhost:3000')).toBe(false);
    expect(publicUrlIsHttps(undefined)).toBe(false);
  });

  it('leaves the CSP of API routes to them', () => {
    const h = securityHeaders({ https: true, dev: false, page: false });
    expect(h['content-security-policy']).toBeUndefined();
    expect(h['x-content-type-options']).toBe('nosniff');
    expect(h['strict-transport-security']).toBeDefined();
  });
});
