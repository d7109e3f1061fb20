import { describe, expect, it } from 'vitest';
import { matchRoute } from './handler';
import { bearerToken, MAX_BODY_BYTES, queryObject, readJsonBody } from './request';

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request('http://x/', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

describe('readJsonBody', () => {
  it('parses JSON, including +json types and a UTF-8 BOM', async () => {
    expect(await readJsonBody(post('{"a":1}', { 'content-type': 'application/json; charset=utf-8' }))).toEqual({
      a: 1,
    });
    expect(await readJsonBody(post('{"a":1}', { 'content-type': 'application/merge-patch+json' }))).toEqual({ a: 1 });
    expect(await readJsonBody(post('\ufeff[1]', { 'content-type': 'application/json' }))).toEqual([1]);
  });

  it('treats an empty body as none, whatever its type', async () => {
    expect(await readJsonBody(post(null))).toBeUndefined();
    expect(await readJsonBody(post('', { 'content-type': 'text/plain' }))).toBeUndefined();
  });

  it('refuses wrong types (415), large bodies (413) and bad JSON (400)', async () => {
    await expect(readJsonBody(post('{}', { 'content-type': 'text/json' }))).rejects.toMatchObject({ status: 415 });
    await expect(readJsonBody(post('{}'))).rejects.toMatchObject({ status: 415 });
    await expect(
      readJsonBody(post('x', { 'content-type': 'application/json', 'content-length': String(MAX_BODY_BYTES + 1) })),
    ).rejects.toMatchObject({ status: 413 });
    await expect(
      readJsonBody(post(' '.repeat(MAX_BODY_BYTES + 1), { 'content-type': 'application/json' })),
    ).rejects.toMatchObject({
      status: 413,
    });
    await expect(readJsonBody(post('{', { 'content-type': 'application/json' }))).rejects.toMatchObject({
      status: 400,
    });
    await expect(readJsonBody(post('['.repeat(200_000), { 'content-type': 'application/json' }))).rejects.toMatchObject(
      {
        status: 400,
      },
    );
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const started = Date.now();
    await expect(readJsonBody(post(deep, { 'content-type': 'application/json' }))).rejects.toMatchObject({
      status: 400,
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('queryObject and bearerToken', () => {
  it('refuses repeated parameters', () => {
    expect(queryObject(new URL('http://x/?a=1&b=2'))).toEqual({ a: '1', b: '2' });
    expect(() => queryObject(new URL('http://x/?a=1&a=2'))).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('reads Bearer tokens case-insensitively; anything else is empty', () => {
    const req = (authorization?: string) =>
      new Request('http://x/', authorization ? { headers: { authorization } } : {});
    expect(bearerToken(req())).toBeNull();
    expect(bearerToken(req('Bearer abc'))).toBe('abc');
    expect(bearerToken(req('bearer   abc'))).toBe('abc');
    expect(bearerToken(req('Basic abc'))).toBe('');
    expect(bearerToken(req('Bearer a b'))).toBe('');
  });
});

describe('matchRoute', () => {
  const compiled = [
    { route: { method: 'GET', path: '/a/{id}' }, pattern: /^\/a\/([^/]+)$/, names: ['id'] },
    { route: { method: 'POST', path: '/a/{id}' }, pattern: /^\/a\/([^/]+)$/, names: ['id'] },
  ] as unknown as Parameters<typeof matchRoute>[0];

  it('decodes parameters, reports allowed methods, and treats bad escapes as not found', () => {
    const m = matchRoute(compiled, 'GET', '/a/x%20y');
    expect(m).toMatchObject({ kind: 'route', params: { id: 'x y' } });
    expect(matchRoute(compiled, 'DELETE', '/a/1')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'POST'] });
    expect(matchRoute(compiled, 'GET', '/a/%E0%A4%A')).toEqual({ kind: 'not_found' });
    expect(matchRoute(compiled, 'GET', '/b')).toEqual({ kind: 'not_found' });
  });
});
