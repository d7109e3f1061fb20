// The schema-only entry (`@belfry/handlers/schemas`): the API's target schemas as discriminated
// unions (on `type`) of every registered kind, the stored ↔ answered mapping, and the routing
// of runs to queues by target kind. No delivery code and no network client is imported here,
// so the API and the web app can load it.
import type { Lane, Priority, QueueRoute, TargetKind } from '@belfry/core';
import { z } from 'zod';
import { withTargetDefaults } from './defaults';
import type { KindDefinition, RouteFields } from './kind';
import { KINDS } from './kinds';
import { maskTarget } from './secrets';

export type { KindDefinition, KindRouting, RouteFields, SecretFields } from './kind';
export { isSecretName, SECRET_MASK } from './kind';
export { type AttemptOf, DERIVED_HEADERS, storedHeaders, withDerivedHeaders } from './stored-headers';
export {
  keepMaskedSecrets,
  maskedTarget,
  maskTarget,
  revealSecrets,
  revealTarget,
  sealTarget,
  secretFieldsOf,
  type SecretIssue,
  type SecretPath,
  separateSecrets,
  type TargetSecrets,
} from './secrets';
export { withoutTargetDefaults, withTargetDefaults } from './defaults';
export { KINDS } from './kinds';
export { TargetHeaders } from './fields';
export {
  ContainerTarget,
  ContainerTargetInput,
  NETWORKS,
  PULL_POLICIES,
  type PullPolicy,
  type StoredContainerTarget,
} from './container/schema';
export { ImageAllowList, imageReferenceProblem } from './container/images';
export { HTTP_METHODS, type HttpMethod, HttpTarget, HttpTargetInput } from './http/schema';
export { AmqpTarget, AmqpTargetInput } from './amqp/schema';
export { NatsTarget, NatsTargetInput } from './nats/schema';
export { maskUrlPassword } from './brokers/broker-url';
export { PULL_QUEUE_PATTERN, PullQueueName, PullTarget, PullTargetInput } from './pull/schema';

type Kinds = typeof KINDS;
/** The kinds this build implements. */
export type ImplementedKind = Kinds[number]['type'];
/** The implemented kinds whose runs the tenant's workers pull (no engine handler). */
export type PullKind = Extract<ImplementedKind, 'pull'>;

// Mapped over the tuple (a generic parameter keeps it a tuple), for z.discriminatedUnion's options.
type InputsOf<T extends readonly unknown[]> = { -readonly [I in keyof T]: T[I] extends { input: infer S } ? S : never };
type ViewsOf<T extends readonly unknown[]> = { -readonly [I in keyof T]: T[I] extends { view: infer S } ? S : never };

/** A target as a client sends it: one of the registered kinds, told apart by `type`. */
export const TargetInput = z.discriminatedUnion('type', KINDS.map((k) => k.input) as unknown as InputsOf<Kinds>).meta({
  id: 'TargetInput',
  description: 'Where each run is delivered; `type` defaults to "http"',
  // The default kind may leave `type` out, and an OpenAPI discriminator must be present:
  // the document says oneOf without one (zod-openapi applies this override).
  override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    delete jsonSchema.discriminator;
  },
});
/**
 * A target whole: the input after defaults. jobs.target holds it without the fields at their
 * default (withoutTargetDefaults); read it through withTargetDefaults, targetView or revealTarget.
 */
export type StoredTarget = z.output<typeof TargetInput>;

/** A target as the API answers it. */
export const Target = z
  .discriminatedUnion('type', KINDS.map((k) => k.view) as unknown as ViewsOf<Kinds>)
  .meta({ id: 'Target' });
export type TargetView = z.output<typeof Target>;

const BY_TYPE = new Map<string, KindDefinition>(KINDS.map((k) => [k.type, k as unknown as KindDefinition]));

/** The definition of a kind, if this build implements it. */
export function kindOf(type: string): KindDefinition | undefined {
  return BY_TYPE.get(type);
}

/** The lane a kind's runs travel in (unknown kinds: push, where the worker dead-letters them). */
export function laneOf(type: string): Lane {
  return BY_TYPE.get(type)?.lane ?? 'push';
}

/** The kinds whose runs travel in one of `lanes`. */
export function kindsIn(lanes: readonly Lane[]): TargetKind[] {
  return KINDS.filter((k) => lanes.includes(k.lane)).map((k) => k.type);
}

/** The queue a run of this target goes to: by lane, tenant and priority — or, for pull, queue name. */
export function routeOf(target: RouteFields, tenantId: string, priority: Priority): QueueRoute {
  const kind = BY_TYPE.get(target.type);
  if (kind?.lane === 'pull') return { lane: 'pull', tenantId, queue: kind.queueOf(target) };
  return { lane: kind?.lane ?? 'push', tenantId, priority };
}

/** A stored target as the API answers it. */
export function targetView(stored: StoredTarget): TargetView {
  const kind = BY_TYPE.get(stored.type);
  if (!kind) throw new Error(`no kind '${stored.type}' is registered`);
  // Masked again here: rows stored before secrets were sealed hold them in the clear.
  return kind.toView(maskTarget(kind.secrets, withTargetDefaults(stored)) as never) as TargetView;
}
