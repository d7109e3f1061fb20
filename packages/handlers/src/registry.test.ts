// The handler registry: lookup by target type, duplicate detection, and closing every
// handler even when one of them fails to close.
import { describe, expect, it, vi } from 'vitest';
import { HttpHandler } from './http/http';
import { createHandlerRegistry, defaultHandlers } from './registry';
import type { Handler } from './types';

const fake = (type: string, close?: () => Promise<void>): Handler => ({
  type,
  execute: async () => ({ ok: true, durationMs: 0 }),
  ...(close ? { close } : {}),
});

describe('createHandlerRegistry', () => {
  it('finds handlers by target type', () => {
    const http = fake('http');
    const queue = fake('queue');
    const registry = createHandlerRegistry([http, queue]);
    expect(registry.get('http')).toBe(http);
    expect(registry.get('queue')).toBe(queue);
    expect(registry.get('container')).toBeUndefined();
  });

  it('rejects two handlers for one type', () => {
    expect(() => createHandlerRegistry([fake('http'), fake('http')])).toThrow(/duplicate handler.*"http"/);
  });

  it('closes every handler, even after one fails, then reports the failure', async () => {
    const closed = vi.fn(async () => {});
    const registry = createHandlerRegistry([
      fake('a', async () => {
        throw new Error('boom');
      }),
      fake('b', closed),
      fake('c'), // no close(): nothing to release
    ]);
    await expect(registry.close()).rejects.toThrow(AggregateError);
    expect(closed).toHaveBeenCalledOnce();
  });
});

describe('defaultHandlers', () => {
  it('provides the HTTP handler', async () => {
    const registry = createHandlerRegistry(defaultHandlers({ allowPrivateTargets: false }));
    expect(registry.get('http')).toBeInstanceOf(HttpHandler);
    await registry.close();
  });
});
