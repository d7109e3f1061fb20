// findUnstorableText must stay O(n) in memory: a 512 KiB body of strings nested 60 deep once
// cost ~150 MB (every stacked string carried its own copy of its path). The walk runs in a
// worker with a small heap, so a quadratic walk fails the test by running out of memory.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { findUnstorableText } from './text';

describe('findUnstorableText', () => {
  it('reports the path of the first unstorable string or key', () => {
    expect(findUnstorableText({ a: [1, { b: 'ok' }, { c: 'bad\u0000' }] })).toEqual({
      path: ['a', 2, 'c'],
      message: expect.stringContaining('NUL'),
    });
    expect(findUnstorableText({ a: { 'k\u0000': 1 } })?.path).toEqual(['a', 'k\u0000']);
    expect(findUnstorableText(['fine', { deep: [['\ud800']] }])?.path).toEqual([1, 'deep', 0, 0]);
    expect(findUnstorableText({ a: ['x', 2, null, true] })).toBeNull();
  });

  it('walks a 512 KiB body nested 60 deep within a 48 MB heap', async () => {
    const worker = new Worker(
      `
      const { parentPort } = require('node:worker_threads');
      const { tsImport } = require('tsx/esm/api');
      tsImport(${JSON.stringify(new URL('./text.ts', import.meta.url).href)}, __filename).then(({ findUnstorableText }) => {
        const depth = 60;
        const body = '['.repeat(depth) + Array(174000).fill('""').join(',') + ']'.repeat(depth);
        const value = JSON.parse(body);
        parentPort.postMessage({ size: body.length, found: findUnstorableText(value) });
      });
      `,
      { eval: true, resourceLimits: { maxOldGenerationSizeMb: 48 } },
    );
    const result = await new Promise<{ size: number; found: unknown }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(result.size).toBeGreaterThan(500 * 1024);
    expect(result.size).toBeLessThanOrEqual(512 * 1024);
    expect(result.found).toBeNull();
  }, 60_000);
});
