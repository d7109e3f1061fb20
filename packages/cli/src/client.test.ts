import { describe, expect, it } from 'vitest';
import { fakeFetch, jsonResponse } from '../test/memory';
import { BelfryClient, describeNetworkError, retryAfterSeconds } from './client';
import { ApiError, CliError, NetworkError } from './errors';

const client = (respond: Parameters<typeof fakeFetch>[0], sleeps: number[] = []) => {
  const fake = fakeFetch(respond);
  const c = new BelfryClient({
    baseUrl: 'http://belfry.test',
    token: 'bfy_key',
    fetch: fake.fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { c, requests: fake.requests };
};

describe('BelfryClient', () => {
  it('sends the key, the query and JSON bodies under /api/v1', async () => {
    const { c, requests } = client(() => jsonResponse(200, { data: [], nextCursor: null }));
    await c.listJobs({ status: 'paused', limit: 10, cursor: undefined });
    const [req] = requests;
    expect(req?.url.toString()).toBe('http://belfry.test/api/v1/jobs?status=paused&limit=10');
    expect(req?.headers.get('authorization')).toBe('Bearer bfy_key');
    expect(req?.body).toBeUndefined();
    await c.createJob({ name: 'x' }, { idempotencyKey: 'k1' });
    expect(requests[1]?.method).toBe('POST');
    expect(requests[1]?.headers.get('idempotency-key')).toBe('k1');
    expect(requests[1]?.headers.get('content-type')).toBe('application/json');
    expect(requests[1]?.body).toEqual({ name: 'x' });
  });

  it('escapes ids in paths', async () => {
    const { c, requests } = client(() => jsonResponse(200, {}));
    await c.getJob('a/b?c');
    expect(requests[0]?.url.pathname).toBe('/api/v1/jobs/a%2Fb%3Fc');
  });

  it('answers null for an empty 2xx body (DELETE 204)', async () => {
    const { c } = client(() => new Response(null, { status: 204 }));
    expect(await c.deleteJob('job_1')).toBeNull();
  });

  it('turns problem+json into ApiError with detail and field errors', async () => {
    const problem = {
      type: 't',
      title: 'Invalid request',
      status: 400,
      detail: 'bad',
      errors: [{ path: 'name', message: 'x' }],
    };
    const { c } = client(() => jsonResponse(400, problem));
    const err = await c.getJob('j').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).problem).toEqual(problem);
  });

  it('explains an error that is not problem+json', async () => {
    const { c } = client(
      () => new Response('<html>', { status: 404, statusText: 'Not Found', headers: { 'content-type': 'text/html' } }),
    );
    const err = (await c.getJob('j').catch((e: unknown) => e)) as ApiError;
    expect(err.problem.detail).toBe('HTTP 404 Not Found (is http://belfry.test a Belfry server?)');
  });

  it('refuses a 2xx that is not JSON', async () => {
    const { c } = client(() => new Response('<html>', { status: 200, headers: { 'content-type': 'text/html' } }));
    await expect(c.getJob('j')).rejects.toThrow(CliError);
  });

  it('retries a 429 once when Retry-After is short, and not when it is long', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const { c } = client(
      () =>
        ++calls === 1
          ? jsonResponse(429, { detail: 'slow down' }, { 'retry-after': '2' })
          : jsonResponse(200, { ok: 1 }),
      sleeps,
    );
    expect(await c.getJob('j')).toEqual({ ok: 1 });
    expect(sleeps).toEqual([2000]);

    const { c: c2 } = client(() => jsonResponse(429, { detail: 'slow down' }, { 'retry-after': '120' }));
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
