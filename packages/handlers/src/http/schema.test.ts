// The http kind's schema: defaults, the URL and header rules that keep a delivery safe, and the
// stored → answered mapping.
import { describe, expect, it } from 'vitest';
import { httpKind, HttpTargetInput } from './schema';

const issues = (value: unknown) =>
  HttpTargetInput.safeParse(value).error?.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) ?? [];

describe('http target input', () => {
  it('defaults type, method and headers', () => {
    expect(HttpTargetInput.parse({ url: 'https://example.com/hook' })).toEqual({
      type: 'http',
      url: 'https://example.com/hook',
      method: 'POST',
      headers: {},
    });
  });

  it('refuses URLs that are not absolute http(s) without credentials', () => {
    for (const url of ['ftp://example.com/', 'https://user:pw@example.com/', '/relative', 'https://exa mple.com/']) {
      expect(
        issues({ url }).map((i) => i.path),
        url,
      ).toEqual(['url']);
    }
    expect(issues({ url: 'https://user:pw@example.com/' })[0]?.message).toContain('must not contain credentials');
  });

  it('refuses headers Belfry sets or that would break the request', () => {
    expect(issues({ url: 'https://e.com', headers: { 'Webhook-Signature': 'x' } })).toEqual([
      { path: 'headers.Webhook-Signature', message: 'is set by Belfry or the HTTP client and cannot be overridden' },
    ]);
    expect(issues({ url: 'https://e.com', headers: { 'x-a': 'a\r\nb: c' } })[0]?.path).toBe('headers.x-a');
  });

  it('is strict', () => {
    expect(issues({ url: 'https://e.com', queue: 'q' })).toEqual([{ path: '', message: 'Unrecognized key: "queue"' }]);
  });
});

describe('httpKind', () => {
  it('travels in the push lane and declares credential-named headers write-only', () => {
    expect(httpKind.lane).toBe('push');
    expect(httpKind.secrets).toEqual({ namedMaps: ['headers'] });
  });

  it('answers a stored target as the API shape, headers always present', () => {
    const stored = { type: 'http' as const, url: 'https://e.com', method: 'GET' as const, headers: undefined };
    expect(httpKind.toView(stored as never)).toEqual({
      type: 'http',
      url: 'https://e.com',
      method: 'GET',
      headers: {},
    });
  });
});
