// The installed version of a peer's package, for the report (read from its package.json by
// path: not every package exports it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from '@belfry/db';

export function installedVersion(pkg: string): string {
  try {
    const file = join(findRepoRoot(), 'node_modules', pkg, 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}
