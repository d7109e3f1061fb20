// The dashboard's tRPC endpoint over HTTP (handleTrpcRequest, what the web route calls): a
// public procedure (account.signUp) cannot be handed a huge body or a huge batch. Bodies
// past the cap answer 413 problem+json before anything is parsed or created.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardContext } from '../src/trpc/context';
import { handleTrpcRequest, TRPC_MAX_BATCH, TRPC_MAX_BODY_BYTES } from '../src/trpc/http';
import { createHarness, type Harness } from './support';

let h: Harness;
let contexts = 0;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

function post(path: string, body: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  const req = new Request(`http://localhost/api/trpc/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  return handleTrpcRequest(req, {
    endpoint: '/api/trpc',
    async createContext() {
      contexts++;
      return createDashboardContext({
        deps: h.deps,
        userId: null,
        requestedTenantId: null,
        setActiveTenant: () => {},
        clientKey: `trpc-http-${contexts}`,
      });
    },
  });
}

async function users(): Promise<number> {
  const { rows } = await h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  return rows[0]?.n ?? 0;
}

/** A body stream of `bytes` bytes of a JSON string, with no Content-Length to go by. */
function hugeStream(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('{"email":"'));
      controller.enqueue(chunk);
      sent += chunk.byteLength;
      if (sent >= bytes) controller.close();
    },
  });
}

describe('tRPC over HTTP', () => {
  it('signs up with a normal body', async () => {
    const res = await post(
      'account.signUp',
      JSON.stringify({ email: `ok-${Date.now()}@example.com`, password: 'correct horse battery', workspaceName: 'ok' }),
    );
    expect(res.status).toBe(200);
  });

  it('answers 413 problem+json to a streamed body past the cap, creating nothing', async () => {
    const before = await users();
    const res = await post('account.signUp', hugeStream(8 * TRPC_MAX_BODY_BYTES));
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await res.json();
    expect(problem.type).toMatch(/\/payload-too-large$/);
    expect(problem.status).toBe(413);
    expect(await users()).toBe(before);
  });

  it('answers 413 to a declared Content-Length past the cap without reading it', async () => {
    const res = await post('account.signUp', '{}', { 'content-length': String(TRPC_MAX_BODY_BYTES + 1) });
    expect(res.status).toBe(413);
  });

  it(`refuses a batch of more than ${TRPC_MAX_BATCH} calls, creating nothing`, async () => {
    const before = await users();
    const n = TRPC_MAX_BATCH + 1;
    const input: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      input[i] = {
        email: `batch-${i}-${Date.now()}@example.com`,
        password: 'correct horse battery',
        workspaceName: 'b',
      };
    }
    const paths = Array(n).fill('account.signUp').join(',');
    const res = await post(`${paths}?batch=1`, JSON.stringify(input));
    expect(res.status).toBe(400);
    expect(await users()).toBe(before);
  });

  it(`accepts a batch of ${TRPC_MAX_BATCH} calls`, async () => {
    const paths = Array(TRPC_MAX_BATCH).fill('account.invitation').join(',');
    const input = encodeURIComponent(
      JSON.stringify(
        Object.fromEntries(Array.from({ length: TRPC_MAX_BATCH }, (_, i) => [i, { token: 'x'.repeat(43) }])),
      ),
    );
    const req = new Request(`http://localhost/api/trpc/${paths}?batch=1&input=${input}`);
    const res = await handleTrpcRequest(req, {
      endpoint: '/api/trpc',
      createContext: async () =>
        createDashboardContext({ deps: h.deps, userId: null, requestedTenantId: null, setActiveTenant: () => {} }),
    });
    const body = (await res.json()) as unknown[];
    expect(body).toHaveLength(TRPC_MAX_BATCH);
  });
});

describe('request logs', () => {
  it('one line per call with path, type, status, duration and the user and tenant, never inputs or outputs', async () => {
    const lines: Record<string, unknown>[] = [];
    const record = (level: string) => (obj: object | string, msg?: string) =>
      lines.push({ level, ...(typeof obj === 'string' ? { msg: obj } : { ...obj, msg }) });
    const log = { info: record('info'), warn: record('warn'), error: record('error') };
    const call = (path: string, init: RequestInit, userId: string | null = null, tenantId: string | null = null) =>
      handleTrpcRequest(new Request(`http://localhost/api/trpc/${path}`, init), {
        endpoint: '/api/trpc',
        log,
        createContext: async () =>
          createDashboardContext({
            deps: { ...h.deps, log },
            userId,
            requestedTenantId: tenantId,
            setActiveTenant: () => {},
            clientKey: `trpc-log-${++contexts}`,
          }),
      });
    const json = { 'content-type': 'application/json' };

    const email = `logged-${Date.now()}@example.com`;
    const password = 'a password never logged';
    const signUp = await call('account.signUp', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password, workspaceName: 'logged' }),
    });
    expect(signUp.status).toBe(200);
    const { rows } = await h.db.pool.query<{ id: string; tenant_id: string }>(
      'SELECT u.id, m.tenant_id FROM users u JOIN memberships m ON m.user_id = u.id WHERE u.email = $1',
      [email],
    );
    const { id: userId, tenant_id: tenantId } = rows[0] as { id: string; tenant_id: string };

    const created = await call(
      'apiKeys.create',
      { method: 'POST', headers: json, body: JSON.stringify({ name: 'logged key', scopes: ['jobs:read'] }) },
      userId,
      tenantId,
    );
    expect(created.status).toBe(200);
    const key = ((await created.json()) as { result: { data: { key: string } } }).result.data.key;
    expect(key).toMatch(/^bfy_/);

    const input = encodeURIComponent(JSON.stringify({ 0: {}, 1: { id: 'job_00000000000000000000000000' } }));
    const batch = await call(`account.me,jobs.get?batch=1&input=${input}`, {}, userId, tenantId);
    expect(batch.status).toBe(207);
    const missing = await call('nothing.here', {}, userId, tenantId);
    expect(missing.status).toBe(404);

    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(5);
    expect(requests[0]).toMatchObject({ level: 'info', path: 'account.signUp', type: 'mutation', status: 200 });
    expect(requests[0]).not.toHaveProperty('userId');
    expect(requests[1]).toMatchObject({ path: 'apiKeys.create', type: 'mutation', status: 200, userId, tenantId });
    expect(requests[1]).not.toHaveProperty('code');
    // Signed in but not a tenant procedure: the user, no tenant.
    const me = requests.find((l) => l.path === 'account.me');
    expect(me).toMatchObject({ type: 'query', status: 200, userId });
    expect(me).not.toHaveProperty('tenantId');
    expect(requests.find((l) => l.path === 'jobs.get')).toMatchObject({
      type: 'query',
      status: 404,
      code: 'NOT_FOUND',
      userId,
      tenantId,
    });
    // Refused before any procedure ran: logged by the HTTP handler, once.
    expect(requests[4]).toMatchObject({ path: 'nothing.here', status: 404, code: 'NOT_FOUND', userId });
    for (const line of requests) expect(typeof line.durationMs).toBe('number');
    // Never an input (the password) or an output (the new key).
    const text = JSON.stringify(lines);
    expect(text).not.toContain(password);
    expect(text).not.toContain(key);
  });

  it('a body past the cap gets its line too', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = {
      info: (obj: object | string, msg?: string) => lines.push({ ...(obj as object), msg }),
      warn() {},
      error() {},
    };
    const res = await handleTrpcRequest(
      new Request('http://localhost/api/trpc/account.signUp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(TRPC_MAX_BODY_BYTES + 1) },
        body: '{}',
      }),
      { endpoint: '/api/trpc', log, createContext: () => Promise.reject(new Error('not reached')) },
    );
    expect(res.status).toBe(413);
    expect(lines).toEqual([expect.objectContaining({ msg: 'request', path: 'account.signUp', status: 413 })]);
  });
});
