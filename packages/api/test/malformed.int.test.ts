// A table of malformed requests: every one is refused with the right 4xx and a problem+json
// body (field errors where a field is at fault), none is a 5xx, and none creates anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  type Counts,
  counts,
  createHarness,
  type Harness,
  jobBody,
  makeTenant,
  type RequestOptions,
} from './support';

let h: Harness;
let key: string;
let jobId: string;
let before: Counts;

beforeAll(async () => {
  h = await createHarness();
  key = (await makeTenant(h)).key;
  jobId = (await call(h, 'POST', '/api/v1/jobs', { key, body: jobBody() })).body.id;
  before = await counts(h);
});
afterAll(() => h.close());

const cron = (extra: Record<string, unknown>) => ({ schedule: { type: 'cron', expression: '0 7 * * *', ...extra } });
const target = (extra: Record<string, unknown>) => ({
  target: { type: 'http', url: 'https://example.com/hook', ...extra },
});
const headers = (h: Record<string, unknown>) => target({ headers: h });

interface Case {
  name: string;
  status: number;
  /** the field error path expected among `errors` (400 only) */
  path?: string;
  method?: string;
  url?: string | (() => string);
  body?: unknown;
  options?: RequestOptions;
}

const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
const manyHeaders = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x-h${i}`, 'v']));
const bigHeaders = { 'x-a': 'v'.repeat(5000), 'x-b': 'v'.repeat(5000) };

const job = (overrides: Record<string, unknown>, path: string, name?: string): Case => ({
  name: name ?? `job ${path}: ${JSON.stringify(overrides).slice(0, 60)}`,
  status: 400,
  path,
  body: jobBody(overrides),
});

const CASES: Case[] = [
  { name: 'missing name', status: 400, path: 'name', body: { ...jobBody(), name: undefined } },
  job({ name: '' }, 'name'),
  job({ name: 'x'.repeat(201) }, 'name'),
  job({ name: '   ' }, 'name'),
  job({ name: 'tab\there' }, 'name'),
  job({ name: 42 }, 'name'),
  { name: 'missing schedule', status: 400, path: 'schedule', body: { ...jobBody(), schedule: undefined } },
  job({ schedule: { type: 'weekly' } }, 'schedule.type'),
  job({ schedule: {} }, 'schedule.type'),
  job({ schedule: 'every day' }, 'schedule'),
  job(
    { schedule: { type: 'cron', expression: '0 7 * * *', everySeconds: 5 } },
    'schedule.everySeconds',
    'cron with interval fields',
  ),
  job(cron({ expression: 'not a cron' }), 'schedule.expression'),
  job(cron({ expression: '* * * * * * *' }), 'schedule.expression'),
  job(cron({ expression: '60 * * * *' }), 'schedule.expression'),
  job(cron({ expression: '0 0 30 2 *' }), 'schedule.expression', 'cron that never fires'),
  job(cron({ timezone: 'Mars/Olympus' }), 'schedule.timezone'),
  job(cron({ timezone: '+02:00' }), 'schedule.timezone'),
  job({ schedule: { type: 'interval', everySeconds: 0 } }, 'schedule.everySeconds'),
  job({ schedule: { type: 'interval', everySeconds: 1.5 } }, 'schedule.everySeconds'),
  job({ schedule: { type: 'interval', everySeconds: '60' } }, 'schedule.everySeconds'),
  job({ schedule: { type: 'interval', everySeconds: 10 ** 9 } }, 'schedule.everySeconds'),
  job({ schedule: { type: 'once', runAt: 'tomorrow' } }, 'schedule.runAt'),
  job({ schedule: { type: 'once', runAt: '2026-02-30T07:00:00Z' } }, 'schedule.runAt'),
  job({ schedule: { type: 'once', runAt: '2026-12-01T07:00:00' } }, 'schedule.runAt', 'runAt without a zone'),
  job({ schedule: { type: 'once' } }, 'schedule.runAt'),
  { name: 'missing target', status: 400, path: 'target', body: { ...jobBody(), target: undefined } },
  job(target({ url: 'ftp://example.com/x' }), 'target.url'),
  job(target({ url: 'https://user:pw@example.com/x' }), 'target.url'),
  job(target({ url: '/relative/hook' }), 'target.url'),
  job(target({ url: `https://example.com/${'a'.repeat(2048)}` }), 'target.url'),
  job(target({ url: 'https://exa\nmple.com/' }), 'target.url'),
  job(target({ url: 'https://1.2.3.999/' }), 'target.url'),
  job(target({ method: 'TRACE' }), 'target.method'),
  job({ target: { type: 'grpc', url: 'https://example.com' } }, 'target.type'),
  job(headers({ 'webhook-id': 'x' }), 'target.headers.webhook-id'),
  job(headers({ Host: 'evil.example' }), 'target.headers.Host'),
  job(headers({ 'Idempotency-Key': 'x' }), 'target.headers.Idempotency-Key'),
  job(headers({ 'belfry-attempt': '1' }), 'target.headers.belfry-attempt'),
  job(headers({ 'bad header': 'x' }), 'target.headers.bad header'),
  job(headers({ 'x-split': 'a\r\nInjected: yes' }), 'target.headers.x-split'),
  job(headers({ 'x-nul': 'a\u0000b' }), 'target.headers.x-nul'),
  job(headers({ 'x-num': 5 }), 'target.headers.x-num'),
  job(headers({ 'X-Dup': 'a', 'x-dup': 'b' }), 'target.headers.x-dup'),
  job(headers(manyHeaders), 'target.headers'),
  job(headers(bigHeaders), 'target.headers'),
  job({ payload: 'x'.repeat(300 * 1024) }, 'payload', 'payload over 256 KiB'),
  job({ payload: nested(40) }, 'payload', 'payload nested 40 deep'),
  job({ retry: { maxAttempts: 0 } }, 'retry.maxAttempts'),
  job({ retry: { maxAttempts: 101 } }, 'retry.maxAttempts'),
  job({ retry: { initialDelaySeconds: 100, maxDelaySeconds: 10 } }, 'retry.initialDelaySeconds'),
  job({ retry: { initialDelaySeconds: -1 } }, 'retry.initialDelaySeconds'),
  job({ retry: { maxDelaySeconds: 604_801 } }, 'retry.maxDelaySeconds'),
  job({ retry: { backoff: 'linear' } }, 'retry.backoff'),
  job({ timeoutSeconds: 0 }, 'timeoutSeconds'),
  job({ timeoutSeconds: 901 }, 'timeoutSeconds'),
  job({ priority: 'urgent' }, 'priority'),
  job({ misfirePolicy: 'whenever' }, 'misfirePolicy'),
  job({ overlapPolicy: 'queue' }, 'overlapPolicy'),
  job({ owner: 'me' }, 'owner', 'unknown top-level field'),
  job({ id: 'job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T' }, 'id', 'client-chosen id'),
  ...(
    [
      ['payload string with NUL', { payload: { a: 'x\u0000y' } }, 'payload.a'],
      ['payload key with NUL', { payload: { 'a\u0000': 1 } }, 'payload.a\u0000'],
      ['payload with an unpaired surrogate', { payload: ['\ud800'] }, 'payload.0'],
      ['header value with an unpaired surrogate', headers({ 'x-a': '\udc00' }), 'target.headers.x-a'],
      ['name with an unpaired surrogate', { name: 'a\ud800' }, 'name'],
    ] as const
  ).map(
    ([name, overrides, path]): Case => ({
      name,
      status: 400,
      path,
      // JSON.stringify escapes these, as a client would; PostgreSQL would refuse them.
      options: { raw: JSON.stringify(jobBody(overrides)), headers: { 'content-type': 'application/json' } },
    }),
  ),
  { name: 'body is an array', status: 400, body: [jobBody()] },
  { name: 'body is null', status: 400, options: { raw: 'null', headers: { 'content-type': 'application/json' } } },
  {
    name: 'malformed JSON',
    status: 400,
    options: { raw: '{"name": ', headers: { 'content-type': 'application/json' } },
  },
  { name: 'trailing garbage', status: 400, options: { raw: '{} x', headers: { 'content-type': 'application/json' } } },
  { name: 'empty JSON body', status: 400, options: { raw: '', headers: { 'content-type': 'application/json' } } },
  {
    name: 'invalid UTF-8',
    status: 400,
    options: { raw: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), headers: { 'content-type': 'application/json' } },
  },
  {
    name: 'text/plain',
    status: 415,
    options: { raw: JSON.stringify(jobBody()), headers: { 'content-type': 'text/plain' } },
  },
  { name: 'no content type', status: 415, options: { raw: JSON.stringify(jobBody()) } },
  {
    name: 'form encoded',
    status: 415,
    options: { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  },
  {
    name: 'JSON in latin1',
    status: 415,
    options: { raw: JSON.stringify(jobBody()), headers: { 'content-type': 'application/json; charset=iso-8859-1' } },
  },
  {
    name: 'declared too large',
    status: 413,
    options: { raw: 'x'.repeat(600 * 1024), headers: { 'content-type': 'application/json' } },
  },
  {
    name: 'streamed too large (no Content-Length)',
    status: 413,
    options: {
      headers: { 'content-type': 'application/json' },
      raw: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
          controller.close();
        },
      }),
    },
  },
  {
    name: 'Idempotency-Key with control chars',
    status: 400,
    path: 'Idempotency-Key',
    body: jobBody(),
    options: { headers: { 'idempotency-key': 'a\u0001b' } },
  },
  {
    name: 'PATCH unknown field',
    status: 400,
    path: 'status',
    method: 'PATCH',
    url: () => `/api/v1/jobs/${jobId}`,
    body: { status: 'paused' },
  },
  {
    name: 'PATCH empty name',
    status: 400,
    path: 'name',
    method: 'PATCH',
    url: () => `/api/v1/jobs/${jobId}`,
    body: { name: '' },
  },
  {
    name: 'PATCH bad schedule',
    status: 400,
    path: 'schedule.expression',
    method: 'PATCH',
    url: () => `/api/v1/jobs/${jobId}`,
    body: cron({ expression: '*' }),
  },
  { name: 'PATCH without body', status: 400, method: 'PATCH', url: () => `/api/v1/jobs/${jobId}` },
  {
    name: 'pause with a body',
    status: 400,
    path: 'x',
    method: 'POST',
    url: () => `/api/v1/jobs/${jobId}/pause`,
    body: { x: 1 },
  },
  {
    name: 'trigger with text body',
    status: 415,
    method: 'POST',
    url: () => `/api/v1/jobs/${jobId}/trigger`,
    options: { raw: 'now', headers: { 'content-type': 'text/plain' } },
  },
  { name: 'list name with NUL', status: 400, path: 'name', method: 'GET', url: '/api/v1/jobs?name=a%00' },
  { name: 'list limit=0', status: 400, path: 'limit', method: 'GET', url: '/api/v1/jobs?limit=0' },
  { name: 'list limit=501', status: 400, path: 'limit', method: 'GET', url: '/api/v1/jobs?limit=501' },
  { name: 'list limit twice', status: 400, path: 'limit', method: 'GET', url: '/api/v1/jobs?limit=1&limit=2' },
  {
    name: 'list forged cursor',
    status: 400,
    path: 'cursor',
    method: 'GET',
    url: `/api/v1/jobs?cursor=${Buffer.from('["jobs","x","y"]').toString('base64url')}`,
  },
  {
    name: 'runs status unknown',
    status: 400,
    path: 'status',
    method: 'GET',
    url: () => `/api/v1/jobs/${jobId}/runs?status=done`,
  },
  {
    name: 'preview without expression',
    status: 400,
    path: 'expression',
    method: 'GET',
    url: '/api/v1/schedule/preview',
  },
  {
    name: 'preview with both',
    status: 400,
    path: 'expression',
    method: 'GET',
    url: '/api/v1/schedule/preview?expression=*+*+*+*+*&everySeconds=5',
  },
  {
    name: 'preview count 101',
    status: 400,
    path: 'count',
    method: 'GET',
    url: '/api/v1/schedule/preview?everySeconds=5&count=101',
  },
  {
    name: 'preview bad timezone',
    status: 400,
    path: 'timezone',
    method: 'GET',
    url: '/api/v1/schedule/preview?expression=*+*+*+*+*&timezone=Nowhere',
  },
  {
    name: 'preview bad from',
    status: 400,
    path: 'from',
    method: 'GET',
    url: '/api/v1/schedule/preview?everySeconds=5&from=yesterday',
  },
  {
    name: 'preview everySeconds 0',
    status: 400,
    path: 'everySeconds',
    method: 'GET',
    url: '/api/v1/schedule/preview?everySeconds=0',
  },
  { name: 'dead letter bad limit', status: 400, path: 'limit', method: 'GET', url: '/api/v1/dead-letter?limit=-1' },
];

describe('malformed requests', () => {
  it('has a table of at least 40 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const url = typeof c.url === 'function' ? c.url() : (c.url ?? '/api/v1/jobs');
    const res = await call(h, c.method ?? 'POST', url, { key, body: c.body, ...c.options });
    expect(res.status).toBe(c.status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toMatchObject({
      type: expect.any(String),
      title: expect.any(String),
      status: c.status,
      detail: expect.any(String),
    });
    if (c.status === 400) expect(Array.isArray(res.body.errors)).toBe(true);
    if (c.path !== undefined) {
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(c.path);
      for (const e of res.body.errors) expect(e).toEqual({ path: expect.any(String), message: expect.any(String) });
    }
  });

  it('created, changed and enqueued nothing', async () => {
    expect(await counts(h)).toEqual(before);
    const { rows } = await h.db.pool.query('SELECT version FROM jobs WHERE id = $1', [jobId]);
    expect(rows[0].version).toBe(1);
  });
});
