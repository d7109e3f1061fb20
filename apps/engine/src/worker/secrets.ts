// The secrets a worker opens: signing secrets per tenant, decrypted on demand and cached
// briefly, so a rotation is picked up within seconds without a query per delivery; and a
// run's target with its write-only fields revealed, just before it is handed to its handler.
// A delivery waits for the row only when its tenant has no answer yet (or one too old to
// sign with): once the cache is older than ttlMs the row is read again in the background while
// deliveries keep signing with the last answer, so no delivery waits on a pool that is busy
// claiming (traced in steady runs: deliveries of a tenant waited up to ~60 ms at each re-read).
import { type Keyring, SIGNING_SECRET_PURPOSE } from '@belfry/core';
import type { ClaimedRun } from '@belfry/db';
import { revealTarget } from '@belfry/handlers';
import type pg from 'pg';

const OPENED_MAX = 4096;

interface Cached {
  /** when the row was read (asked for) */
  at: number;
  secrets: Promise<string[]>;
  /** the read succeeded: its answer may sign while a newer one is read */
  answered: boolean;
  /** a newer read of this tenant's row is under way */
  refreshing: boolean;
}

export class SigningSecrets {
  // The promise is cached, not just the answer: a herd's first deliveries for a tenant (hundreds
  // at once) then share one query and one decryption instead of each making their own.
  private readonly cache = new Map<string, Cached>();
  // Opened secrets by tenant and sealed bytes: the row is read again every ttlMs to see a
  // rotation, but opening it (an HKDF and an AES-GCM decryption) is needed only when it changed.
  // The same sealed bytes authenticate to the same plaintext under the same tenant's context.
  private readonly opened = new Map<string, string>();

  private open(tenantId: string, sealed: Buffer): string {
    const key = `${tenantId}:${sealed.toString('base64')}`;
    let plain = this.opened.get(key);
    if (plain === undefined) {
      plain = this.keyring.open(sealed, { tenantId, purpose: SIGNING_SECRET_PURPOSE });
      if (this.opened.size >= OPENED_MAX) this.opened.clear();
      this.opened.set(key, plain);
    }
    return plain;
  }

  /**
   * @param ttlMs how old an answer may be before the row is read again (in the background)
   * @param maxStaleMs how old an answer may be and still sign while that read is under way
   *   (a database that does not answer for longer makes deliveries wait, and fail, as before)
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly keyring: Keyring,
    private readonly ttlMs = 5_000,
    private readonly maxStaleMs = 30_000,
  ) {}

  get(tenantId: string): Promise<string[]> {
    const now = Date.now();
    const hit = this.cache.get(tenantId);
    if (hit && now - hit.at < this.ttlMs) return hit.secrets;
    if (hit?.answered && now - hit.at < this.maxStaleMs) {
      this.refresh(tenantId, hit);
      return hit.secrets;
    }
    return this.read(tenantId).secrets;
  }

  /** Reads the row again once per stale answer; the answer replaces the cached one when it comes. */
  private refresh(tenantId: string, stale: Cached): void {
    if (stale.refreshing) return;
    stale.refreshing = true;
    this.read(tenantId, stale);
  }

  /** A read of the tenant's row: cached at once, or (refreshing `stale`) once it answered. */
  private read(tenantId: string, stale?: Cached): Cached {
    const entry: Cached = { at: Date.now(), secrets: this.load(tenantId), answered: false, refreshing: false };
    if (!stale) this.cache.set(tenantId, entry);
    entry.secrets.then(
      () => {
        entry.answered = true;
        if (stale && this.cache.get(tenantId) === stale) this.cache.set(tenantId, entry);
      },
      () => {
        // A failed read is not kept: the next delivery asks again. A failed refresh leaves the
        // stale answer signing (until maxStaleMs).
        if (stale) stale.refreshing = false;
        else if (this.cache.get(tenantId) === entry) this.cache.delete(tenantId);
      },
    );
    return entry;
  }

  private async load(tenantId: string): Promise<string[]> {
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
    const open = (sealed: Buffer) => this.open(tenantId, sealed);
    return row
      ? [open(row.current_secret), ...(row.previous_live && row.previous_secret ? [open(row.previous_secret)] : [])]
      : [];
  }

  /** The run's target in plaintext, for its handler only: never log or store what this returns. */
  revealTarget(run: Pick<ClaimedRun, 'tenant_id' | 'target' | 'target_secrets'>): ClaimedRun['target'] {
    return revealTarget(this.keyring, run.tenant_id, run.target, run.target_secrets ?? null);
  }
}
