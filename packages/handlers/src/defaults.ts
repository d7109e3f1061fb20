// Stored targets without their defaults (issue 16, bytes per stored job). jobs.target keeps only
// the fields that differ from their kind's defaults (the `.default(...)`s of the kind's input
// schema): an http target `{ "type": "http", "url": ... }` instead of also `"method": "POST",
// "headers": {}` — 58 bytes of jsonb instead of 96. `type` always stays: hot SQL routes by
// `target->>'type'` (RouteFields), and is the kind to fill defaults from.
//
// Every reader of a stored target fills them back in through withTargetDefaults: the API's
// answers (targetView) and delivery (revealTarget). A target stored whole (before this) reads
// the same, so stored rows never need rewriting.
//
// So a kind's defaults are part of the stored format: changing one (or removing it) changes
// every stored target that left the field out. Do it with a migration that first writes the
// old default into those rows (`jsonb_set` where the field is missing).
import type { z } from 'zod';
import { KINDS } from './kinds';

type AnyTarget = Record<string, unknown>;

/** The fields of a kind's input schema that have a default, with it (`type` aside). */
function defaultsOf(input: z.ZodObject): [field: string, value: unknown, json: string][] {
  const out: [string, unknown, string][] = [];
  for (const [field, schema] of Object.entries(input.shape)) {
    const def = (schema as z.ZodType)._zod.def as { type: string; defaultValue?: unknown };
    if (field === 'type' || def.type !== 'default') continue;
    out.push([field, def.defaultValue, JSON.stringify(def.defaultValue)]);
  }
  return out;
}

const DEFAULTS = new Map<string, [string, unknown, string][]>(KINDS.map((k) => [k.type, defaultsOf(k.input)]));

/** `target` as stored: the fields holding their kind's default left out. */
export function withoutTargetDefaults<T extends AnyTarget>(target: T): T {
  const defaults = DEFAULTS.get(target.type as string);
  if (!defaults?.length) return target;
  const out: AnyTarget = { ...target };
  for (const [field, , json] of defaults) {
    if (field in out && JSON.stringify(out[field]) === json) delete out[field];
  }
  return out as T;
}

/** A stored target whole again: every field it left out at its kind's default. */
export function withTargetDefaults<T extends AnyTarget>(stored: T): T {
  const defaults = DEFAULTS.get(stored.type as string);
  if (!defaults?.length) return stored;
  const out: AnyTarget = { ...stored };
  // A fresh `{}` per read: a handler may keep what it is given, never one object shared by targets.
  for (const [field, value] of defaults) {
    if (!(field in out)) out[field] = typeof value === 'object' ? structuredClone(value) : value;
  }
  return out as T;
}
