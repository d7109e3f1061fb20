import { getEventListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Exchange } from './exchange';
import { DeliveryCancelledError, DeliveryTimeoutError } from './http-response';

/** what undici's client hands a handler: here it only records aborts */
function controller(): Dispatcher.DispatchController & { aborts: Error[] } {
  const aborts: Error[] = [];
  return {
    aborts,
    aborted: false,
    paused: false,
    reason: null,
    abort: (reason: Error) => void aborts.push(reason),
    pause: () => {},
    resume: () => {},
  };
}

function exchange(o: { maxBytes?: number; drainLimitBytes?: number; timeoutMs?: number; signal?: AbortSignal } = {}) {
  return new Exchange({
    maxBytes: o.maxBytes ?? 10,
    drainLimitBytes: o.drainLimitBytes ?? 20,
    timeoutMs: o.timeoutMs ?? 60_000,
    signal: o.signal ?? new AbortController().signal,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Exchange', () => {
  it('reads a short body whole, with the status, its text and the headers', async () => {
    const x = exchange();
    const c = controller();
    x.onRequestStart(c);
    x.onResponseStart(c, 100, {}, 'Continue'); // informational: not the response
    x.onResponseStart(c, 201, { 'retry-after': '5' }, 'Created');
    x.onResponseData(c, Buffer.from('ab'));
    x.onResponseData(c, Buffer.from('cd'));
    x.onResponseEnd();
    await expect(x.response).resolves.toEqual({
      statusCode: 201,
      statusText: 'Created',
      headers: { 'retry-after': '5' },
      bytes: Buffer.from('abcd'),
    });
    expect(c.aborts).toEqual([]);
  });

  it('keeps one chunk past the limit and discards the rest of a body within the drain limit to its end', async () => {
    const x = exchange({ maxBytes: 3, drainLimitBytes: 16 });
    const c = controller();
    x.onRequestStart(c);
    x.onResponseStart(c, 200, {});
    x.onResponseData(c, Buffer.from('ab'));
    x.onResponseData(c, Buffer.from('cdef')); // crosses the limit: kept
    x.onResponseData(c, Buffer.from('ghijk')); // discarded
    x.onResponseData(c, Buffer.from('lmnop')); // discarded: 16 bytes in all, the drain limit
    x.onResponseEnd();
    await expect(x.response).resolves.toMatchObject({ bytes: Buffer.from('abcdef') });
    expect(c.aborts).toEqual([]);
  });

  it('cuts off a body longer than the drain limit without waiting for its end', async () => {
    const x = exchange({ maxBytes: 3, drainLimitBytes: 10 });
    const c = controller();
    x.onRequestStart(c);
    x.onResponseStart(c, 500, {});
    x.onResponseData(c, Buffer.from('abcd'));
    x.onResponseData(c, Buffer.from('x'.repeat(11)));
    await expect(x.response).resolves.toMatchObject({ statusCode: 500, bytes: Buffer.from('abcd') });
    expect(c.aborts).toHaveLength(1);
    // what undici reports after the abort changes nothing
    x.onResponseError(c, new Error('aborted'));
    await expect(x.response).resolves.toMatchObject({ statusCode: 500 });
  });

  it('cuts off a body announced longer than the drain limit as soon as the kept bytes are in', async () => {
    const x = exchange({ maxBytes: 3, drainLimitBytes: 100 });
    const c = controller();
    x.onRequestStart(c);
    x.onResponseStart(c, 200, { 'content-length': '101' });
    x.onResponseData(c, Buffer.from('ab'));
    expect(c.aborts).toEqual([]);
    x.onResponseData(c, Buffer.from('cd'));
    await expect(x.response).resolves.toMatchObject({ statusCode: 200, bytes: Buffer.from('abcd') });
    expect(c.aborts).toHaveLength(1);
  });

  it('lets the response stand when the deadline, or a broken socket, comes after the kept bytes', async () => {
    vi.useFakeTimers();
    const late = exchange({ maxBytes: 3, timeoutMs: 1_000 });
    const c = controller();
    late.onRequestStart(c);
    late.onResponseStart(c, 200, {});
    late.onResponseData(c, Buffer.from('abcd'));
    vi.advanceTimersByTime(1_000);
    await expect(late.response).resolves.toMatchObject({ statusCode: 200, bytes: Buffer.from('abcd') });
    expect(c.aborts).toHaveLength(1);
    expect(c.aborts[0]).toBeInstanceOf(DeliveryTimeoutError);

    const reset = exchange({ maxBytes: 3 });
    reset.onRequestStart(c);
    reset.onResponseStart(c, 500, {});
    reset.onResponseData(c, Buffer.from('abcd'));
    reset.onResponseError(c, Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    await expect(reset.response).resolves.toMatchObject({ statusCode: 500 });

    // before the kept bytes are in, the same deadline fails the exchange
    const early = exchange({ maxBytes: 3, timeoutMs: 1_000 });
    early.onRequestStart(c);
    early.onResponseStart(c, 200, {});
    early.onResponseData(c, Buffer.from('abc'));
    vi.advanceTimersByTime(1_000);
    await expect(early.response).rejects.toBeInstanceOf(DeliveryTimeoutError);
  });

  it('times out while still queued for a socket, and aborts the request when undici starts it', async () => {
    vi.useFakeTimers();
    const signal = new AbortController().signal;
    const x = exchange({ timeoutMs: 5_000, signal });
    const settled = x.response.catch((err: unknown) => err);
    vi.advanceTimersByTime(4_999);
    let done = false;
    void settled.then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    vi.advanceTimersByTime(1);
    const err = await settled;
    expect(err).toBeInstanceOf(DeliveryTimeoutError);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    const c = controller();
    x.onRequestStart(c);
    expect(c.aborts).toEqual([err]);
  });

  it("ends with the attempt's cancel, not the socket error the abort causes, and keeps the status", async () => {
    const attempt = new AbortController();
    const x = exchange({ signal: attempt.signal });
    const c = controller();
    x.onRequestStart(c);
    x.onResponseStart(c, 200, {});
    x.onResponseData(c, Buffer.from('ab'));
    attempt.abort(new Error('run was cancelled'));
    x.onResponseError(c, Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const err = await x.response.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeliveryCancelledError);
    expect((err as Error).message).toBe('cancelled: run was cancelled');
    expect(c.aborts).toEqual([err]);
    expect(x.statusCode).toBe(200);
  });

  it("reports undici's error when nothing of ours ended the exchange, and stops listening to the attempt", async () => {
    const attempt = new AbortController();
    const x = exchange({ signal: attempt.signal });
    expect(getEventListeners(attempt.signal, 'abort')).toHaveLength(1);
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    x.onResponseError(null, refused);
    await expect(x.response).rejects.toBe(refused);
    expect(getEventListeners(attempt.signal, 'abort')).toHaveLength(0);
    expect(x.statusCode).toBeNull();
  });
});
