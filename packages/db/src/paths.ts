// Where Belfry keeps local state (.belfry/): the repository root, found by walking up from
// the working directory to the package.json of the `belfry` workspace root.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readDbEnv } from './env';

export function findRepoRoot(start: string = process.cwd()): string {
  let dir = resolve(/* turbopackIgnore: true */ start);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const json = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string; workspaces?: unknown };
        if (json.name === 'belfry' && json.workspaces) return dir;
      } catch {
        // not a readable package.json; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return resolve(/* turbopackIgnore: true */ start);
    dir = parent;
  }
}

/** `.belfry/` at the repository root, or BELFRY_HOME. */
export function belfryHome(override: string | undefined = readDbEnv().BELFRY_HOME): string {
  return override
    ? resolve(/* turbopackIgnore: true */ override)
    : join(/* turbopackIgnore: true */ findRepoRoot(), '.belfry');
}

export function migrationsDir(): string {
  return join(/* turbopackIgnore: true */ findRepoRoot(), 'prisma', 'migrations');
}
