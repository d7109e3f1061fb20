// Text PostgreSQL cannot store: NUL (refused in text and jsonb) and unpaired UTF-16
// surrogates (JSON.stringify escapes them as \ud800, which jsonb refuses). Both are caught
// at the door as field errors, never left to fail as a database error.
import { textProblem } from '@belfry/core';
import type { z } from 'zod';

export { hasControlCharacter, textProblem } from '@belfry/core';

/** A zod refinement for strings that end up in the database. */
export function storableText(value: string, ctx: z.core.$RefinementCtx<string>): void {
  const problem = textProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
}

/**
 * The first string or object key in a JSON value that cannot be stored, with its path.
 * O(n) in the size of the value: each stacked entry points at its parent instead of
 * carrying a copy of its path, and a path is built only for the one value reported.
 */
export function findUnstorableText(value: unknown): { path: (string | number)[]; message: string } | null {
  interface Frame {
    value: unknown;
    key: string | number | null;
    parent: Frame | null;
  }
  const pathOf = (frame: Frame | null): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let f = frame; f && f.key !== null; f = f.parent) path.push(f.key);
    return path.reverse();
  };
  const stack: Frame[] = [{ value, key: null, parent: null }];
  while (stack.length) {
    const frame = stack.pop() as Frame;
    const v = frame.value;
    if (typeof v === 'string') {
      const message = textProblem(v);
      if (message) return { path: pathOf(frame), message };
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ value: v[i], key: i, parent: frame });
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        const message = textProblem(k);
        if (message) return { path: [...pathOf(frame), k], message: `key ${message}` };
        stack.push({ value: (v as Record<string, unknown>)[k], key: k, parent: frame });
      }
    }
  }
  return null;
}
