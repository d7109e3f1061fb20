// Signing secrets per tenant, decrypted on demand and cached briefly, so a rotation is
// picked up within seconds without a query per delivery.
import { openSecret } from '@belfry/core';
import type pg from 'pg';

export class SigningSecrets {
  private readonly cache = new Map<string, { at: number; secrets: string[] }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly key: Buffer,
    private readonly ttlMs = 5_000,
  ) {}

  async get(tenantId: string): Promise<string[]> {
    const hit = this.cache.get(tenantId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.secrets;
    const { rows } = await this.pool.query<{
      current_secret: Buffer;
      previous_secret: Buffer | null;
      previous_live: boolean;
    }>(
      `SELECT current_secret, previous_secret, coalesce(previous_expires_at > now(), false) AS previous_live
       FROM signing_secrets WHERE tenant_id = $1`,
      [tenantId],
    );
    const row = rows[0];
    const secrets = row
      ? [
          openSecret(this.key, row.current_secret),
          ...(row.previous_live && row.previous_secret ? [openSecret(this.key, row.previous_secret)] : []),
        ]
      : [];
    this.cache.set(tenantId, { at: Date.now(), secrets });
    return secrets;
  }
}
