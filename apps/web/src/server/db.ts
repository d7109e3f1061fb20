// One pg pool per web process. The web app is always started with DATABASE_URL (by
// `npm start`, or by the operator); without it, it resolves the shared embedded server.
import { createPool, resolveDatabase } from '@belfry/db';
import type pg from 'pg';

let pool: Promise<pg.Pool> | undefined;

export function getPool(): Promise<pg.Pool> {
  pool ??= resolveDatabase().then((target) => createPool(target.url, { max: 20, name: 'belfry-web' }));
  return pool;
}
