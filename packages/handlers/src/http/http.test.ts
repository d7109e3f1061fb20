// The HTTP handler against docs/webhooks.md, with a real loopback server on the other end:
// the exact headers, a signature that standardwebhooks verifies (also mid-rotation), the
// body rules, status → outcome mapping and redaction of the stored request headers.
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningSecret, isRetryable } from '@belfry/core';
import { HttpHandler, type HttpTarget } from './http';
import { makeContext, SECRET, startServer, type Respond, type TestServer } from '../testing';

let handler: HttpHandler;
let server: TestServer;
let respond: Respond;

beforeAll(async () => {
  handler = new HttpHandler({ allowPrivateTargets: true });
  server = await startServer((req, res, received) => respond(req, res, received));
});
afterAll(async () => {
  await handler.close();
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
  respond = (_req, res) => res.end('ok');
});
respond = (_req, res) => res.end('ok');

const target = (path = '/hook', extra: Partial<HttpTarget> = {}): HttpTarget => ({
  type: 'http',
  url: `${server.url}${path}`,
  method: 'POST',
  ...extra,
});

describe('request', () => {
  it('sends the contract headers and a body signed over exactly the bytes sent', async () => {
    const payload = { hello: 'wörld', n: 1, emoji: '🔔' };
    const now = new Date();
    const outcome = await handler.execute(
      target('/hook?x=1', { headers: { 'X-Custom': 'yes' } }),
      payload,
      makeContext({ attempt: 3, now: () => now }),
    );

    expect(outcome).toMatchObject({ ok: true, httpStatus: 200, responseSnippet: 'ok', error: null });
    expect(outcome.failure).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/hook?x=1');
    expect(req!.body).toBe(JSON.stringify(payload));
    expect(req!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Belfry-Webhooks/1.0',
      'webhook-id': 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'idempotency-key': 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
      'belfry-job-id': 'job_01JH8Z3K5W6X7Y8Z9A0B1C2D3F',
      'belfry-scheduled-time': '2025-03-30T01:30:00.000Z',
      'belfry-attempt': '3',
      'x-custom': 'yes',
      'content-length': String(Buffer.byteLength(req!.body)),
    });
    expect(req!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(SECRET).verify(req!.body, req!.headers as Record<string, string>)).toEqual(payload);
  });

  it('signs with every secret during a rotation, each verifying on its own', async () => {
    const current = generateSigningSecret();
    const previous = generateSigningSecret();
    await handler.execute(target(), { rotate: true }, makeContext({ signingSecrets: [current, previous] }));
    const [req] = server.requests;
    const headers = req!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(req!.body, headers)).toEqual({ rotate: true });
    expect(new Webhook(previous).verify(req!.body, headers)).toEqual({ rotate: true });
    expect(() => new Webhook(generateSigningSecret()).verify(req!.body, headers)).toThrow();
  });

  it("does not let job headers override Belfry's", async () => {
    const evil = {
      'Webhook-Id': 'evil',
      'webhook-timestamp': '1',
      'webhook-signature': 'v1,evil',
      'Idempotency-Key': 'evil',
      'belfry-job-id': 'evil',
      'belfry-attempt': '99',
      'belfry-scheduled-time': 'evil',
      'User-Agent': 'evil',
      'Content-Type': 'text/plain',
      'content-length': '1',
      host: 'evil.example',
    };
    const outcome = await handler.execute(target('/hook', { headers: evil }), { a: 1 }, makeContext());
    expect(outcome.ok).toBe(true);
    const headers = server.requests[0]!.headers;
    expect(headers).toMatchObject({
      'webhook-id': 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
      'idempotency-key': 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
      'belfry-job-id': 'job_01JH8Z3K5W6X7Y8Z9A0B1C2D3F',
      'belfry-attempt': '1',
      'belfry-scheduled-time': '2025-03-30T01:30:00.000Z',
      'user-agent': 'Belfry-Webhooks/1.0',
      'content-type': 'application/json',
      'content-length': '7',
      host: `127.0.0.1:${server.port}`,
    });
    expect(headers['webhook-timestamp']).not.toBe('1');
    expect(new Webhook(SECRET).verify(server.requests[0]!.body, headers as Record<string, string>)).toEqual({ a: 1 });
  });

  it.each(['GET', 'HEAD'] as const)(
    '%s sends no body (and no content-type), signed over the empty body',
    async (method) => {
      const outcome = await handler.execute(target('/hook', { method }), { ignored: true }, makeContext());
      expect(outcome.ok).toBe(true);
      const [req] = server.requests;
      expect(req!.method).toBe(method);
      expect(req!.body).toBe('');
      expect(req!.headers['content-type']).toBeUndefined();
      expect(req!.headers['transfer-encoding']).toBeUndefined();
      expect(['0', undefined]).toContain(req!.headers['content-length']);
      expect(() => new Webhook(SECRET).verify('', req!.headers as Record<string, string>)).not.toThrow();
    },
  );

  it('sends an empty body for an undefined payload and "null" for null', async () => {
    await handler.execute(target(), undefined, makeContext());
    await handler.execute(target('/hook', { method: 'DELETE' }), null, makeContext());
    const [none, nul] = server.requests;
    expect(none!.body).toBe('');
    expect(none!.headers['content-type']).toBeUndefined();
    expect(nul!.body).toBe('null');
    expect(nul!.headers['content-type']).toBe('application/json');
    expect(new Webhook(SECRET).verify(nul!.body, nul!.headers as Record<string, string>)).toBeNull();
  });

  it('redacts credentials in the stored request headers but sends them', async () => {
    const sent = {
      Authorization: 'Bearer s3cr3t',
      Cookie: 'session=abc',
      'Proxy-Authorization': 'Basic xyz',
      'X-Api-Key': 'k-123',
      'X-Auth-Token': 't-456',
      'X-Client-Secret': 'c-789',
      'X-Plain': 'visible',
    };
    const outcome = await handler.execute(target('/hook', { headers: sent }), {}, makeContext());
    expect(outcome.requestHeaders).toMatchObject({
      authorization: '***',
      cookie: '***',
      'proxy-authorization': '***',
      'x-api-key': '***',
      'x-auth-token': '***',
      'x-client-secret': '***',
      'webhook-signature': '***',
      'x-plain': 'visible',
      'idempotency-key': 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
      'webhook-id': 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
    });
    expect(JSON.stringify(outcome.requestHeaders)).not.toMatch(/s3cr3t|abc|xyz|k-123|t-456|c-789|v1,/);
    expect(server.requests[0]!.headers).toMatchObject({ authorization: 'Bearer s3cr3t', 'x-api-key': 'k-123' });
  });
});

describe('response', () => {
  it.each([
    [200, true],
    [201, true],
    [204, true],
    [299, true],
  ])('%i is success', async (status, ok) => {
    respond = (_req, res) => res.writeHead(status).end();
    const outcome = await handler.execute(target(), {}, makeContext());
    expect(outcome).toMatchObject({ ok, httpStatus: status, retryAfterMs: null });
    expect(outcome.durationMs).toBeGreaterThan(0);
  });

  it.each([
    [503, '7', 7_000],
    [429, '120', 120_000],
    [500, undefined, null],
    [408, '0', 0],
    [502, 'soon', null],
  ])('%i is a retryable http failure with Retry-After %s parsed', async (status, retryAfter, expected) => {
    respond = (_req, res) =>
      res.writeHead(status, retryAfter === undefined ? {} : { 'retry-after': retryAfter }).end('busy');
    const outcome = await handler.execute(target(), {}, makeContext());
    expect(outcome).toMatchObject({
      ok: false,
      failure: 'http',
      httpStatus: status,
      retryAfterMs: expected,
      responseSnippet: 'busy',
    });
    expect(outcome.error).toMatch(new RegExp(`^HTTP ${status}`));
    expect(isRetryable(outcome.failure!, outcome.httpStatus)).toBe(true);
  });

  it('parses an HTTP-date Retry-After against ctx.now()', async () => {
    const now = new Date('2025-01-01T00:00:00Z');
    respond = (_req, res) => res.writeHead(429, { 'retry-after': 'Wed, 01 Jan 2025 00:01:30 GMT' }).end();
    const outcome = await handler.execute(target(), {}, makeContext({ now: () => now }));
    expect(outcome.retryAfterMs).toBe(90_000);
  });

  it.each([400, 401, 404, 410, 422])('%i is a non-retryable http failure', async (status) => {
    respond = (_req, res) => res.writeHead(status, { 'retry-after': '5' }).end('{"error":"nope"}');
    const outcome = await handler.execute(target(), {}, makeContext());
    expect(outcome).toMatchObject({
      ok: false,
      failure: 'http',
      httpStatus: status,
      retryAfterMs: null,
      responseSnippet: '{"error":"nope"}',
    });
    expect(isRetryable(outcome.failure!, outcome.httpStatus)).toBe(false);
  });

  it('does not follow redirects', async () => {
    respond = (req, res) =>
      req.url === '/moved' ? res.writeHead(301, { location: '/elsewhere' }).end() : res.end('followed!');
    const outcome = await handler.execute(target('/moved'), {}, makeContext());
    expect(outcome).toMatchObject({ ok: false, failure: 'http', httpStatus: 301 });
    expect(outcome.error).toContain('redirect to /elsewhere not followed');
    expect(isRetryable(outcome.failure!, outcome.httpStatus)).toBe(false);
    expect(server.requests.map((r) => r.url)).toEqual(['/moved']);
  });
});

describe('prepared ahead of the start', () => {
  it('the request prepared before the start is the one sent, stamped with the start and signed', async () => {
    const startsAt = new Date(Date.now() + 1_500);
    const ctx = makeContext({ attempt: 2 });
    const prepared = handler.prepare(target('/early'), { prepared: true }, ctx, startsAt);
    expect(prepared).toBeDefined();
    expect(server.requests).toHaveLength(0); // preparing sends nothing
    // The start sends what was prepared (not a request rebuilt from what execute is given).
    const outcome = await handler.execute(target('/late'), { prepared: false }, { ...ctx, prepared });
    expect(outcome).toMatchObject({ ok: true, httpStatus: 200 });
    const [req] = server.requests;
    expect(req!.url).toBe('/early');
    expect(req!.body).toBe('{"prepared":true}');
    expect(req!.headers['webhook-timestamp']).toBe(String(Math.floor(startsAt.getTime() / 1000)));
    expect(req!.headers['belfry-attempt']).toBe('2');
    expect(new Webhook(SECRET).verify(req!.body, req!.headers as Record<string, string>)).toEqual({ prepared: true });
    expect(outcome.requestHeaders?.['webhook-signature']).toBe('***');
    expect(outcome.requestHeaders?.['webhook-timestamp']).toBe(req!.headers['webhook-timestamp']);
  });

  it('a request prepared for another attempt is not sent: the start builds its own', async () => {
    const prepared = handler.prepare(target('/first'), { attempt: 1 }, makeContext({ attempt: 1 }), new Date());
    const outcome = await handler.execute(target('/second'), { attempt: 2 }, makeContext({ attempt: 2, prepared }));
    expect(outcome).toMatchObject({ ok: true });
    const [req] = server.requests;
    expect(req!.url).toBe('/second');
    expect(req!.headers['belfry-attempt']).toBe('2');
  });

  it('a start already past is stamped with now', () => {
    const now = new Date('2026-12-03T10:00:07.400Z');
    const prepared = handler.prepare(target(), {}, makeContext({ now: () => now }), new Date(now.getTime() - 60_000));
    expect((prepared as { headers: Record<string, string> }).headers['webhook-timestamp']).toBe(
      String(Math.floor(now.getTime() / 1000)),
    );
  });

  it('nothing is prepared for an invalid target or secret; the start reports it as usual', async () => {
    for (const [t, ctx, message] of [
      [{ ...target(), method: 'TRACE' as never }, makeContext(), 'unsupported method'],
      [{ ...target(), url: 'not a url' }, makeContext(), 'invalid URL'],
      [target(), makeContext({ signingSecrets: ['nope'] }), 'cannot sign'],
    ] as const) {
      const prepared = handler.prepare(t, {}, ctx, new Date(Date.now() + 1_000));
      expect(prepared).toBeUndefined();
      const outcome = await handler.execute(t, {}, { ...ctx, prepared });
      expect(outcome).toMatchObject({ ok: false, failure: 'invalid' });
      expect(outcome.error).toContain(message);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('invalid input', () => {
  it.each([
    ['a malformed URL', { url: 'not a url' }],
    ['a non-http scheme', { url: 'ftp://127.0.0.1/x' }],
    ['an unsupported method', { method: 'TRACE' as never }],
    ['a CR/LF in a header value', { headers: { 'x-injected': 'a\r\nx-evil: 1' } }],
    ['an invalid header name', { headers: { 'bad header': 'x' } }],
  ])('%s fails as invalid without a request', async (_name, extra) => {
    const outcome = await handler.execute({ ...target(), ...extra }, {}, makeContext());
    expect(outcome).toMatchObject({ ok: false, failure: 'invalid' });
    expect(isRetryable(outcome.failure!, outcome.httpStatus)).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('an unserialisable payload or a bad secret fails as invalid', async () => {
    const big = await handler.execute(target(), { n: 1n }, makeContext());
    expect(big).toMatchObject({ ok: false, failure: 'invalid' });
    expect(big.error).toContain('not JSON-serialisable');
    const secret = await handler.execute(target(), {}, makeContext({ signingSecrets: ['nope'] }));
    expect(secret).toMatchObject({ ok: false, failure: 'invalid' });
    expect(secret.error).toContain('cannot sign');
    expect(server.requests).toHaveLength(0);
  });
});
