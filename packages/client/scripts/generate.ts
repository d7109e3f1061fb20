// Generates src/generated/openapi.ts — the TypeScript types of every path, operation and
// schema of /api/v1 — from the OpenAPI document that packages/api builds out of the same zod
// schemas that validate requests. Run by `npm install` (postinstall) and `npm run generate`;
// the output is not committed, so a field added to a schema reaches the client, the CLI and
// the web app at the next install, typecheck or generate, without hand edits.
//
//   node --import tsx packages/client/scripts/generate.ts [--check]
//
// --check writes nothing and exits 1 when the file on disk differs from a fresh generation.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOpenApiTypes } from './render';

const target = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));
const check = process.argv.includes('--check');

const contents = await renderOpenApiTypes();
const current = existsSync(target) ? readFileSync(target, 'utf8') : null;
const shown = relative(process.cwd(), target);

if (check) {
  if (current !== contents) {
    process.stderr.write(`${shown} is out of date: run \`npm run generate\`\n`);
    process.exit(1);
  }
} else if (current !== contents) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, contents);
  process.stdout.write(`generated ${shown}\n`);
}
