// After `npm install`: generates the Prisma client, then the REST client's types from the
// OpenAPI document (packages/client/src/generated, which needs the Prisma client to load
// packages/api). Prisma 7 wants a schema engine binary even for `generate`, which needs no
// engine; pointing it at /bin/true keeps installs offline.
import { spawnSync } from 'node:child_process';

const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= '/bin/true';
const steps = [
  ['npx', ['prisma', 'generate']],
  [process.execPath, ['--import', 'tsx', 'packages/client/scripts/generate.ts']],
];
for (const [command, args] of steps) {
  const result = spawnSync(command, args, { stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
