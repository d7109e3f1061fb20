// This deployment's id: made once, kept in belfry_settings, and put on every container it
// starts (label belfry.deployment), so that two Belfry deployments sharing a Docker Engine
// (or test databases on one machine) never sweep each other's containers.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';

export async function deploymentId(pool: pg.Pool): Promise<string> {
  await pool.query(
    `INSERT INTO belfry_settings (key, value) VALUES ('deployment_id', $1) ON CONFLICT (key) DO NOTHING`,
    [randomUUID()],
  );
  const { rows } = await pool.query<{ value: string }>(`SELECT value FROM belfry_settings WHERE key = 'deployment_id'`);
  return rows[0]?.value as string;
}
