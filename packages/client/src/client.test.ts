import { describe, expect, it } from 'vitest';
import { BelfryClient } from './client';
import { ApiError, describeNetworkError, NetworkError, retryAfterSeconds, UnexpectedResponseError } from './errors';

interface Recorded {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': type, ...headers } });
}

function client(respond: (req: Recorded) => Response | Promise<Response>, sleeps: number[] = []) {
  const requests: Recorded[] = [];
  const c = new BelfryClient({
    baseUrl: 'http://belfry.test/',
    token: 'bfy_key',
    userAgent: 'test-agent',
    fetch: (async (input: string | URL | Request, init: RequestInit = {}) => {
      const req = {
        method: init.method ?? 'GET',
        url: new URL(String(input)),
        headers: new Headers(init.headers),
        body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      };
      requests.push(req);
      return respond(req);
    }) as typeof fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { c, requests };
}

describe('BelfryClient', () => {
  it('sends the key, the query and JSON bodies under /api/v1', async () => {
    const { c, requests } = client(() => json(200, { data: [], nextCursor: null }));
    await c.listJobs({ status: 'paused', limit: 10, cursor: undefined });
    const [req] = requests;
    expect(req?.url.toString()).toBe('http://belfry.test/api/v1/jobs?status=paused&limit=10');
    expect(req?.headers.get('authorization')).toBe('Bearer bfy_key');
    expect(req?.headers.get('user-agent')).toBe('test-agent');
    expect(req?.headers.get('content-type')).toBeNull();
    expect(req?.body).toBeUndefined();
    const body = {
      name: 'x',
      schedule: { type: 'interval' as const, everySeconds: 60 },
      target: { url: 'https://x.test' },
    };
    await c.createJob(body, { idempotencyKey: 'k1' });
    expect(requests[1]?.method).toBe('POST');
    expect(requests[1]?.headers.get('idempotency-key')).toBe('k1');
    expect(requests[1]?.headers.get('content-type')).toBe('application/json');
    expect(requests[1]?.body).toEqual(body);
  });

  it('escapes ids in paths', async () => {
    const { c, requests } = client(() => json(200, {}));
    await c.getJob('a/b?c');
    expect(requests[0]?.url.pathname).toBe('/api/v1/jobs/a%2Fb%3Fc');
  });

  it('answers nothing for an empty 2xx body (DELETE 204)', async () => {
    const { c, requests } = client(() => new Response(null, { status: 204 }));
    await expect(c.deleteJob('job_1')).resolves.toBeUndefined();
    expect(requests[0]?.method).toBe('DELETE');
  });

  it('turns problem+json into ApiError with detail and field errors', async () => {
    const problem = {
      type: 't',
      title: 'Invalid request',
      status: 400,
      detail: 'bad',
      errors: [{ path: 'name', message: 'x' }],
    };
    const { c } = client(() => json(400, problem));
    const err = await c.getJob('j').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).problem).toEqual(problem);
    expect((err as ApiError).message).toBe('bad');
  });

  it('explains an error that is not problem+json', async () => {
    const { c } = client(
      () => new Response('<html>', { status: 404, statusText: 'Not Found', headers: { 'content-type': 'text/html' } }),
    );
    const err = (await c.getJob('j').catch((e: unknown) => e)) as ApiError;
    expect(err.problem.detail).toBe('HTTP 404 Not Found (is http://belfry.test a Belfry server?)');
  });

  it('refuses a 2xx that is not JSON, or JSON that does not parse', async () => {
    const { c } = client(() => new Response('<html>', { status: 200, headers: { 'content-type': 'text/html' } }));
    await expect(c.getJob('j')).rejects.toThrow(UnexpectedResponseError);
    const { c: c2 } = client(
      () => new Response('{oops', { status: 200, headers: { 'content-type': 'application/json' } }),
    );
    await expect(c2.getJob('j')).rejects.toThrow(UnexpectedResponseError);
  });

  it('retries a 429 once when Retry-After is short, and not when it is long', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const { c, requests } = client(
      () => (++calls === 1 ? json(429, { detail: 'slow down' }, { 'retry-after': '2' }) : json(200, { ok: 1 })),
      sleeps,
    );
    expect(await c.replayDeadLetter({ all: true })).toEqual({ ok: 1 });
    expect(sleeps).toEqual([2000]);
    expect(requests.map((r) => r.body)).toEqual([{ all: true }, { all: true }]);

    const { c: c2 } = client(() => json(429, { detail: 'slow down' }, { 'retry-after': '120' }));
    const err = (await c2.getJob('j').catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(429);
    expect(err.retryAfterSeconds).toBe(120);
  });

  it('names the server and the reason when it cannot be reached', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    const { c } = client(() => {
      throw refused;
    });
    const err = await c.getJob('j').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe('cannot reach http://belfry.test: connection refused');
  });

  it('follows nextCursor to the end with paginate()', async () => {
    const pages: Record<string, { data: number[]; nextCursor: string | null }> = {
      '': { data: [1, 2], nextCursor: 'c2' },
      c2: { data: [3], nextCursor: null },
    };
    const { c, requests } = client((req) => json(200, pages[req.url.searchParams.get('cursor') ?? '']));
    const seen: unknown[] = [];
    for await (const job of c.paginate((q) => c.listJobs(q))) seen.push(job);
    expect(seen).toEqual([1, 2, 3]);
    expect(requests.map((r) => r.url.search)).toEqual(['?limit=500', '?limit=500&cursor=c2']);
  });

  it('describes the common network failures', () => {
    const agg = {
      cause: Object.assign(new AggregateError([Object.assign(new Error(), { code: 'ECONNREFUSED' })]), {}),
    };
    expect(describeNetworkError(agg, 1000)).toBe('connection refused');
    expect(describeNetworkError({ cause: { code: 'ENOTFOUND' } }, 1000)).toBe('host not found');
    expect(describeNetworkError(Object.assign(new Error('t'), { name: 'TimeoutError' }), 30_000)).toBe(
      'no answer within 30 s',
    );
    expect(describeNetworkError({ cause: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } }, 1000)).toBe(
      'TLS failure (DEPTH_ZERO_SELF_SIGNED_CERT)',
    );
  });

  it('reads Retry-After seconds only', () => {
    expect(retryAfterSeconds('5')).toBe(5);
    expect(retryAfterSeconds(null)).toBeNull();
    expect(retryAfterSeconds('Wed, 21 Oct 2015 07:28:00 GMT')).toBeNull();
  });
});
