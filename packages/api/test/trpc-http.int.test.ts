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
