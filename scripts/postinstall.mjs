// Generates the Prisma client after `npm install`. Prisma 7 wants a schema engine binary
// even for `generate`, which needs no engine; pointing it at /bin/true keeps installs offline.
import { spawnSync } from 'node:child_process';

const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= '/bin/true';
const result = spawnSync('npx', ['prisma', 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
