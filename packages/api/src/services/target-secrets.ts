// Write-only target fields (docs/api.md, "Write-only secrets in targets") at the API's edge: what a
// client sends is split into the clear target (secrets masked as '***') and the sealed secrets,
// which go to jobs.target_secrets; '***' sent back keeps what is stored. Which fields are secret
// comes from each kind's `secrets` declaration (@belfry/handlers), never from here.
import type { Keyring } from '@belfry/core';
import { revealTarget, type StoredTarget, sealTarget } from '@belfry/handlers/schemas';
import { AppError } from '../errors';

export interface StorableTarget {
  /** for jobs.target: every secret '***' */
  target: StoredTarget;
  /** for jobs.target_secrets */
  secrets: Buffer | null;
}

/**
 * Makes `input` (validated) ready to store for `tenantId`. `current` is the job's stored target
 * and sealed secrets when it is being changed. A '***' that has nothing to keep is a 400 at
 * `target.<field>[.<name>]`.
 */
export function storableTarget(
  keyring: Keyring,
  tenantId: string,
  input: StoredTarget,
  current: { target: StoredTarget; target_secrets: Uint8Array | null } | null,
  at: (string | number)[] = ['target'],
): StorableTarget {
  const plain = current ? revealTarget(keyring, tenantId, current.target, current.target_secrets) : null;
  const { stored, sealed, issues } = sealTarget(keyring, tenantId, input, plain);
  if (issues.length > 0) {
    throw AppError.invalid(issues.map((i) => ({ path: [...at, ...i.path].join('.'), message: i.message })));
  }
  return { target: stored, secrets: sealed };
}
