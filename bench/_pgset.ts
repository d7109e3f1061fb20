import pg from 'pg';
import { readDbEnv, resolveDatabase } from '@belfry/db';
const server = await resolveDatabase(readDbEnv());
const c = new pg.Client({ connectionString: server.url });
await c.connect();
for (const s of [
  'data_checksums',
  'io_method',
  'shared_buffers',
  'max_wal_size',
  'wal_buffers',
  'checkpoint_timeout',
  'synchronous_commit',
  'wal_compression',
  'huge_pages',
  'jit',
]) {
  const { rows } = await c.query(`SELECT current_setting('${s}') AS v`);
  console.log(s, rows[0].v);
}
await c.end();
await server.release();
