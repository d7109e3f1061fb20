// After `npm install`: generates the Prisma client, then the REST client's types from the
// OpenAPI document (packages/client/src/generated, which needs the Prisma client to load
// packages/api), offline (install/env.mjs).
import { spawnSync } from 'node:child_process';
import { installEnv } from './install/env.mjs';

const env = installEnv();
const steps = [
  ['npx', ['prisma', 'generate']],
  [process.execPath, ['--import', 'tsx', 'packages/client/scripts/generate.ts']],
];
for (const [command, args] of steps) {
  const result = spawnSync(command, args, { stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
