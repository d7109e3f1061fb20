// The web process's pg pool, for server code that needs raw SQL outside a domain service.
// It is the pool of the shared ServiceDeps (see deps.ts), not a second one.
import type pg from 'pg';
import { getDeps } from './deps';

export async function getPool(): Promise<pg.Pool> {
  return (await getDeps()).pool;
}
