import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_NODE_FLAGS } from './node-flags';

describe('ENGINE_NODE_FLAGS', () => {
  it('are the flags `npm run engine` starts a node with (package.json cannot import them)', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.engine).toBe(`exec node ${ENGINE_NODE_FLAGS.join(' ')} --import tsx apps/engine/src/main.ts`);
  });
});
