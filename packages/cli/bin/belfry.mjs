#!/usr/bin/env node
// Launcher for `npx belfry`: runs the TypeScript CLI (src/main.ts) under tsx's loader, in this
// process. Commander and the workspace packages need Node >= 22.12; when an older node starts
// this script (a shell without the repository's node_modules/.bin on PATH), it re-runs itself
// with the Node 22 the repository installs as a devDependency (the `node` package).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
const supported = major > 22 || (major === 22 && minor >= 12);

if (supported) {
  await import('tsx');
  await import(new URL('../src/main.ts', import.meta.url).href);
} else {
  let node22 = null;
  try {
    node22 = join(dirname(createRequire(import.meta.url).resolve('node/package.json')), 'bin', 'node');
  } catch {
    // the repository's node package is not installed
  }
  if (!node22 || !existsSync(node22)) {
    process.stderr.write(
      `belfry needs Node.js 22.12 or newer (this is ${process.version}); run npm install at the repository root\n`,
    );
    process.exit(1);
  }
  const result = spawnSync(node22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`belfry: cannot start ${node22}: ${result.error.message}\n`);
    process.exit(1);
  }
  process.exit(result.status ?? 128 + (result.signal === 'SIGINT' ? 2 : 15));
}
