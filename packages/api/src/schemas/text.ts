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

/** The first string or object key in a JSON value that cannot be stored, with its path. */
export function findUnstorableText(value: unknown): { path: (string | number)[]; message: string } | null {
  const stack: Array<[unknown, (string | number)[]]> = [[value, []]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const message = textProblem(v);
      if (message) return { path, message };
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push([v[i], [...path, i]]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const message = textProblem(k);
        if (message) return { path: [...path, k], message: `key ${message}` };
        stack.push([item, [...path, k]]);
      }
    }
  }
  return null;
}
