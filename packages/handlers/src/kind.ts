// What a target kind is, as far as everything but its delivery goes: its name, the lane its
// runs travel in, the zod schemas of what a client sends and what the API answers, the mapping
// between the two, and which of its fields are write-only secrets. A kind's folder exports one
// of these (`<kind>/schema.ts`) and its handler (the runtime half, engine only).
import type { TargetKind, WorkerLane } from '@belfry/core';
import type { z } from 'zod';

/**
 * The target fields that decide where a run is queued: its kind, and for pull targets the queue
 * the tenant's workers claim from. Hot paths (the due scan) read only these from the stored
 * target (`target->>'type'`, `target->>'queue'`), so a kind must route by these alone.
 */
export interface RouteFields {
  type: string;
  queue?: string | null;
}

/**
 * Which fields of a target are write-only (docs/api.md, "Write-only secrets in targets"):
 * answered as `***`, never logged, stored encrypted; `***` sent back in a PATCH keeps the stored
 * value. Field names are the target's own (top level).
 */
export interface SecretFields {
  /** URL fields whose password is secret: `amqp://user:***@host/vhost` */
  urlPasswords?: readonly string[];
  /** string maps (headers, env) whose values are secret where the name looks like a credential (isSecretName) */
  namedMaps?: readonly string[];
  /** fields secret as a whole */
  values?: readonly string[];
}

/** The value a secret reads back as, and which, sent back, keeps the stored one. */
export const SECRET_MASK = '***';

const SECRET_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie']);
const SECRET_PARTS = ['token', 'secret', 'key', 'password'];

/**
 * docs/api.md, "Write-only secrets in targets": authorization, proxy-authorization, cookie, and
 * names containing token, secret, key or password.
 */
export function isSecretName(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_NAMES.has(lower) || SECRET_PARTS.some((part) => lower.includes(part));
}

/**
 * Where a kind's runs go. `push` and `container` runs are queued per tenant and priority and
 * executed by engine workers serving that lane; `pull` runs are queued per tenant and queue
 * name and claimed by the tenant's own workers over REST — engine workers never fetch them.
 */
export type KindRouting =
  | { lane: WorkerLane }
  | {
      lane: 'pull';
      /** the queue the run waits in (from the target's `queue` field) */
      queueOf(target: RouteFields): string;
    };

export type KindDefinition<
  Type extends TargetKind = TargetKind,
  Input extends z.ZodObject = z.ZodObject,
  View extends z.ZodObject = z.ZodObject,
> = KindRouting & {
  type: Type;
  /** what a client sends: a strict object whose `type` is z.literal(type) */
  input: Input;
  /** what the API answers for a stored target */
  view: View;
  /** the stored target (the input's output, as written to jobs.target) as the API answers it */
  toView(stored: z.output<Input>): z.output<View>;
  secrets: SecretFields;
};

/** Declares a kind; only infers its types. */
export function defineKind<Type extends TargetKind, Input extends z.ZodObject, View extends z.ZodObject>(
  kind: KindDefinition<Type, Input, View>,
): KindDefinition<Type, Input, View> {
  return kind;
}
