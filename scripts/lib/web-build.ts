// Whether the dashboard's production build is older than its sources (then `npm start`
// builds it before serving).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  if (!statSync(dir).isDirectory()) return statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.next' || entry.name === 'generated') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export function webBuildIsStale(root: string): boolean {
  const buildId = join(root, 'apps/web/.next/BUILD_ID');
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const sources = [
    'apps/web/src',
    'apps/web/next.config.ts',
    'packages/api/src',
    'packages/core/src',
    'packages/db/src',
  ];
  return sources.some(
    (s) => newestMtime(join(root, s)) > built || (existsSync(join(root, s)) && statSync(join(root, s)).mtimeMs > built),
  );
}
