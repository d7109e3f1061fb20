// Target and payload input rules. Targets are the handlers registry's (one schema per kind,
// assembled into a union on `type` in @belfry/handlers); the payload is every kind's: refused
// at the door when too large or too deep to serialise cheaply, or not storable.
import { z } from 'zod';
import { findUnstorableText } from './text';

export { TargetInput } from '@belfry/handlers/schemas';

export const MAX_PAYLOAD_BYTES = 256 * 1024;
export const MAX_PAYLOAD_DEPTH = 32;

/** Nesting depth of a JSON value: scalars 0, `{}`/`[]` 1, and so on. Iterative: no stack to blow. */
export function jsonDepth(value: unknown, limit: number): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth]);
  }
  return max;
}

function checkPayload(value: unknown, ctx: z.core.$RefinementCtx<unknown>): void {
  if (value === undefined) return;
  // Depth first: it bounds the cost of the walk below.
  if (jsonDepth(value, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH) {
    ctx.addIssue({ code: 'custom', message: `must be nested at most ${MAX_PAYLOAD_DEPTH} levels deep` });
    return;
  }
  const bad = findUnstorableText(value);
  if (bad) {
    ctx.addIssue({ code: 'custom', path: bad.path, message: bad.message });
    return;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be JSON' });
  } else if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) {
    ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_PAYLOAD_BYTES} bytes as JSON` });
  }
}

export const PayloadInput = z
  .unknown()
  .superRefine(checkPayload)
  .meta({
    description: `Any JSON, sent as the request body; at most ${MAX_PAYLOAD_BYTES} bytes serialised`,
    example: { any: 'json' },
  });
