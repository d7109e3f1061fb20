// Turns zod failures into the API's field errors ({ path, message }), so every transport
// reports invalid input the same way: one entry per offending field, dotted paths.
import type { z } from 'zod';
import { AppError, type FieldError } from '../errors';

function pathOf(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

export function fieldErrors(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: pathOf([...path, key]), message: 'is not a known field' });
    } else {
      out.push({ path: pathOf(path), message: issue.message });
    }
  }
  return out;
}

/** Parses `value` or throws a 400 AppError listing every problem. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  prefix: readonly PropertyKey[] = [],
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw AppError.invalid(fieldErrors(result.error, prefix));
}
