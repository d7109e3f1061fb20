// The generated types are not committed (they are made at install, typecheck and `npm run
// generate`), so the one way they can lag is a schema edited after the last generation:
// say so here, with the command that fixes it, rather than as puzzling type errors.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderOpenApiTypes } from '../scripts/render';
import { JOB_STATUSES, MISFIRE_POLICIES, PRIORITIES, RUN_STATUSES } from '../src/types';

describe('generated OpenAPI types', () => {
  it('match the OpenAPI document the zod schemas produce now (else run `npm run generate`)', async () => {
    const onDisk = readFileSync(new URL('../src/generated/openapi.ts', import.meta.url), 'utf8');
    expect(onDisk === (await renderOpenApiTypes()), 'src/generated/openapi.ts is stale: run `npm run generate`').toBe(
      true,
    );
  }, 60_000);

  it("carry the API's enumerations as values", () => {
    expect(JOB_STATUSES).toEqual(['active', 'paused', 'completed']);
    expect(RUN_STATUSES).toEqual(['pending', 'running', 'succeeded', 'failed', 'dead', 'cancelled', 'skipped']);
    expect(PRIORITIES).toEqual(['high', 'normal', 'low']);
    expect(MISFIRE_POLICIES).toEqual(['run_once', 'catch_up', 'skip']);
  });
});
