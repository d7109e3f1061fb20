// Write-only target fields (docs/api.md, "Write-only secrets in targets"), for every kind from its
// `secrets` declaration alone: where a target's secrets are, the target with each of them masked
// (`***`), the secrets themselves (sealed by the API into jobs.target_secrets), putting them back
// before delivery, and what `***` sent back in a change means (keep the stored value). No crypto
// here: sealing is the caller's (a Keyring from @belfry/core), so the web app can load this.
import { type Keyring, TARGET_SECRET_PURPOSE } from '@belfry/core';
import { withoutTargetDefaults, withTargetDefaults } from './defaults';
import { isSecretName, SECRET_MASK, type SecretFields } from './kind';
import { KINDS } from './kinds';

/** Where one secret lives in a target: a top-level field, or a name inside a map field. */
export type SecretPath = readonly [field: string] | readonly [field: string, name: string];

/** How a secret is stored within its field. */
type Shape = 'value' | 'url-password' | 'map-value';

interface Slot {
  path: SecretPath;
  shape: Shape;
  /** the secret as it stands in the target (for URLs: the password as written, still percent-encoded) */
  value: string;
}

/** The sealed half of a target: its secrets by path (JSON, sealed as one string). */
export interface TargetSecrets {
  v: 1;
  entries: { path: SecretPath; value: string }[];
}

type AnyTarget = Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a URL's authority ends (the first `/`, `?` or `#` after `scheme://`). */
function authorityEnd(url: string, start: number): number {
  let end = url.length;
  for (const stop of ['/', '?', '#']) {
    const at = url.indexOf(stop, start);
    if (at >= 0 && at < end) end = at;
  }
  return end;
}

/** Where the password of a URL sits in its text: [start, end), or null without one. */
function passwordSpan(url: string): [number, number] | null {
  const scheme = url.indexOf('://');
  if (scheme < 0) return null;
  const start = scheme + 3;
  const at = url.lastIndexOf('@', authorityEnd(url, start) - 1);
  if (at < start) return null;
  const colon = url.indexOf(':', start);
  if (colon < 0 || colon > at) return null;
  return [colon + 1, at];
}

/** Scheme, user, host and port without the password: what must stay for `***` to keep the stored one. */
function credentialScope(url: string): string {
  const scheme = url.indexOf('://');
  const authority = scheme < 0 ? url : url.slice(0, authorityEnd(url, scheme + 3));
  const span = passwordSpan(authority);
  return (span ? authority.slice(0, span[0]) + authority.slice(span[1]) : authority).toLowerCase();
}

/** Every secret a target holds, per its kind's declaration (empty values hold nothing). */
function slotsOf(spec: SecretFields, target: AnyTarget): Slot[] {
  const slots: Slot[] = [];
  for (const field of spec.values ?? []) {
    const value = target[field];
    if (typeof value === 'string' && value !== '') slots.push({ path: [field], shape: 'value', value });
  }
  for (const field of spec.urlPasswords ?? []) {
    const url = target[field];
    if (typeof url !== 'string') continue;
    const span = passwordSpan(url);
    if (span && span[1] > span[0]) slots.push({ path: [field], shape: 'url-password', value: url.slice(...span) });
  }
  for (const field of spec.namedMaps ?? []) {
    const map = target[field];
    if (!isRecord(map)) continue;
    for (const [name, value] of Object.entries(map)) {
      if (isSecretName(name) && typeof value === 'string' && value !== '') {
        slots.push({ path: [field, name], shape: 'map-value', value });
      }
    }
  }
  return slots;
}

/** A copy of `target` with the secret at each slot replaced by `replace(slot)`. */
function rewrite(target: AnyTarget, slots: Slot[], replace: (slot: Slot) => string): AnyTarget {
  const out: AnyTarget = { ...target };
  for (const slot of slots) {
    const [field, name] = slot.path;
    const next = replace(slot);
    if (slot.shape === 'value') out[field] = next;
    else if (slot.shape === 'url-password') {
      const url = out[field] as string;
      const span = passwordSpan(url) as [number, number];
      out[field] = url.slice(0, span[0]) + next + url.slice(span[1]);
    } else {
      out[field] = { ...(out[field] as Record<string, unknown>), [name as string]: next };
    }
  }
  return out;
}

/** The target with every secret read back as `***` (also masks rows stored before sealing existed). */
export function maskTarget<T extends AnyTarget>(spec: SecretFields, target: T): T {
  return rewrite(target, slotsOf(spec, target), () => SECRET_MASK) as T;
}

/**
 * Splits a plaintext target into what is stored in the clear (every secret masked) and its
 * secrets (null when it holds none).
 */
export function separateSecrets<T extends AnyTarget>(
  spec: SecretFields,
  target: T,
): { masked: T; secrets: TargetSecrets | null } {
  const slots = slotsOf(spec, target).filter((s) => s.value !== SECRET_MASK);
  if (slots.length === 0) return { masked: maskTarget(spec, target), secrets: null };
  return {
    masked: maskTarget(spec, target),
    secrets: { v: 1, entries: slots.map((s) => ({ path: s.path, value: s.value })) },
  };
}

const samePath = (a: SecretPath, b: SecretPath) => a.length === b.length && a.every((part, i) => part === b[i]);

/** The plaintext target: each masked secret put back from `secrets` (a target stored before sealing passes through). */
export function revealSecrets<T extends AnyTarget>(spec: SecretFields, masked: T, secrets: TargetSecrets | null): T {
  if (!secrets) return masked;
  const slots = slotsOf(spec, masked).filter((s) => s.value === SECRET_MASK);
  return rewrite(
    masked,
    slots,
    (slot) => secrets.entries.find((e) => samePath(e.path, slot.path))?.value ?? slot.value,
  ) as T;
}

export interface SecretIssue {
  path: string[];
  message: string;
}

/** The stored slot `***` at `slot` refers to: same path, else the same map name in another case when unique. */
function storedCounterpart(slot: Slot, stored: Slot[]): Slot | undefined {
  const exact = stored.find((s) => samePath(s.path, slot.path));
  if (exact || slot.shape !== 'map-value') return exact;
  const [field, name] = slot.path;
  const folded = stored.filter(
    (s) => s.path[0] === field && s.path[1]?.toLowerCase() === (name as string).toLowerCase(),
  );
  return folded.length === 1 ? folded[0] : undefined;
}

/**
 * What a client sent, with each `***` at a secret's place replaced by the stored plaintext
 * there (`stored`: the job's current target, revealed; null on create). A `***` with nothing
 * stored to keep is an issue, and so is one in a URL whose user, host or port changed (the
 * password would otherwise follow the job to a host it was never meant for).
 */
export function keepMaskedSecrets<T extends AnyTarget>(
  spec: SecretFields,
  input: T,
  stored: AnyTarget | null,
): { target: T; issues: SecretIssue[] } {
  const masked = slotsOf(spec, input).filter((s) => s.value === SECRET_MASK);
  if (masked.length === 0) return { target: input, issues: [] };
  const storedSlots = stored && stored.type === input.type ? slotsOf(spec, stored) : [];
  const issues: SecretIssue[] = [];
  const target = rewrite(input, masked, (slot) => {
    const kept = storedCounterpart(slot, storedSlots);
    const path = [...slot.path];
    if (!kept) {
      issues.push({ path, message: `'${SECRET_MASK}' keeps a stored secret, and there is none here; send the value` });
      return slot.value;
    }
    if (
      slot.shape === 'url-password' &&
      credentialScope(input[slot.path[0]] as string) !== credentialScope(stored?.[slot.path[0]] as string)
    ) {
      issues.push({
        path,
        message: `its user, host or port changed; send the password again instead of '${SECRET_MASK}'`,
      });
      return slot.value;
    }
    return kept.value;
  });
  return { target: target as T, issues };
}

// ---- sealing a whole target, by its kind (the Keyring is passed in; only its type is imported)

const SPECS = new Map<string, SecretFields>(KINDS.map((k) => [k.type, k.secrets]));

/** The secret declaration of a kind (none for an unknown kind). */
export function secretFieldsOf(type: unknown): SecretFields {
  return (typeof type === 'string' && SPECS.get(type)) || {};
}

const contextOf = (tenantId: string) => ({ tenantId, purpose: TARGET_SECRET_PURPOSE });

/**
 * A target as a client sent it, made ready to store: `***` resolved against `current` (the
 * job's target now, revealed; null on create), every secret masked in the clear copy and
 * sealed into `sealed` (null when there are none), and the fields at their kind's default left
 * out of the clear copy (defaults.ts). Issues are reported, not thrown.
 */
export function sealTarget<T extends AnyTarget>(
  keyring: Pick<Keyring, 'seal'>,
  tenantId: string,
  input: T,
  current: AnyTarget | null,
): { stored: T; sealed: Buffer | null; issues: SecretIssue[] } {
  const spec = secretFieldsOf(input.type);
  const { target, issues } = keepMaskedSecrets(spec, input, current);
  const { masked, secrets } = separateSecrets(spec, target);
  const sealed = secrets ? keyring.seal(JSON.stringify(secrets), contextOf(tenantId)) : null;
  return { stored: withoutTargetDefaults(masked), sealed, issues };
}

/**
 * The plaintext target of a stored one, whole (its defaults filled in; a target stored before
 * sealing existed has no sealed half).
 */
export function revealTarget<T extends AnyTarget>(
  keyring: Pick<Keyring, 'open'>,
  tenantId: string,
  stored: T,
  sealed: Uint8Array | null,
): T {
  const whole = withTargetDefaults(stored);
  if (!sealed) return whole;
  const secrets = JSON.parse(keyring.open(sealed, contextOf(tenantId))) as TargetSecrets;
  return revealSecrets(secretFieldsOf(stored.type), whole, secrets);
}

/** The target as anyone may see it: every secret `***`. */
export function maskedTarget<T extends AnyTarget>(stored: T): T {
  return maskTarget(secretFieldsOf(stored.type), stored);
}
