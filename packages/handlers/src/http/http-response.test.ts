import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPrefix } from './http-response';

const listeners = (s: PassThrough) =>
  ['data', 'end', 'error', 'close'].reduce((n, event) => n + s.listenerCount(event), 0);

describe('readPrefix', () => {
  it('reads a body shorter than the limit to its end', async () => {
    const body = new PassThrough();
    const read = readPrefix(body, 10);
    body.write('ab');
    body.end('cd');
    await expect(read).resolves.toEqual({ bytes: Buffer.from('abcd'), complete: true });
    expect(listeners(body)).toBe(0);
  });

  it('stops once more than the limit arrived, pauses the stream and leaves the rest unread', async () => {
    const body = new PassThrough();
    const read = readPrefix(body, 3);
    body.write('ab');
    body.write('cdef');
    const { bytes, complete } = await read;
    expect(bytes.toString()).toBe('abcdef');
    expect(complete).toBe(false);
    expect(body.isPaused()).toBe(true);
    expect(listeners(body)).toBe(0);
    body.write('more');
    expect(body.read()?.toString()).toBe('more');
  });

  it('rejects with the stream error', async () => {
    const body = new PassThrough();
    const read = readPrefix(body, 10);
    body.write('ab');
    body.destroy(new Error('socket hang up'));
    await expect(read).rejects.toThrow('socket hang up');
  });

  it('rejects when the stream closes before it ended', async () => {
    const body = new PassThrough({ emitClose: true });
    const read = readPrefix(body, 10);
    body.write('ab');
    body.destroy();
    await expect(read).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(listeners(body)).toBe(0);
  });

  it('keeps the reads of concurrent streams apart', async () => {
    const a = new PassThrough();
    const b = new PassThrough();
    const readA = readPrefix(a, 10);
    const readB = readPrefix(b, 2);
    a.write('a1');
    b.write('b1b2');
    a.end('a2');
    await expect(readA).resolves.toEqual({ bytes: Buffer.from('a1a2'), complete: true });
    await expect(readB).resolves.toEqual({ bytes: Buffer.from('b1b2'), complete: false });
  });

  it('refuses a second read of a body already being read, and the first still completes', async () => {
    const body = new PassThrough();
    const first = readPrefix(body, 100);
    await expect(readPrefix(body, 100)).rejects.toThrow(/already being read/);
    body.end(Buffer.from('ok'));
    await expect(first).resolves.toEqual({ bytes: Buffer.from('ok'), complete: true });
    expect(body.listenerCount('end')).toBe(0);
  });
});
