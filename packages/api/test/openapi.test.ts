// The OpenAPI document: served without credentials (even with the database down), valid
// according to a third-party validator (Redocly CLI, run offline), and covering every path
// of the public contract with the methods it lists.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { findRepoRoot } from '@belfry/db';
import { createRestHandler, ROUTES } from '../src/index';
import { silentLog } from './support';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'belfry-openapi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[];
}

async function lint(document: unknown, name: string): Promise<LintReport> {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  const cli = join(findRepoRoot(), 'node_modules/@redocly/cli/bin/cli.js');
  const result = await run(process.execPath, [cli, 'lint', file, '--format=json'], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    maxBuffer: 32 * 1024 * 1024,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse(result.stdout) as LintReport;
}

async function fetchDocument() {
  // No database behind it: the document must not need one.
  const handle = createRestHandler(() => Promise.reject(new Error('no database')), { log: silentLog });
  const res = await handle(new Request('http://localhost/api/v1/openapi.json'));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  // biome-ignore lint/suspicious/noExplicitAny: the document is walked structurally below
  return (await res.json()) as any;
}

const CONTRACT: Record<string, string[]> = {
  '/api/v1/jobs': ['post', 'get'],
  '/api/v1/jobs/batch': ['post'],
  '/api/v1/jobs/{id}': ['get', 'patch', 'delete'],
  '/api/v1/jobs/{id}/pause': ['post'],
  '/api/v1/jobs/{id}/resume': ['post'],
  '/api/v1/jobs/{id}/trigger': ['post'],
  '/api/v1/jobs/{id}/runs': ['get'],
  '/api/v1/runs/{runId}': ['get'],
  '/api/v1/runs/{runId}/cancel': ['post'],
  '/api/v1/runs/{runId}/replay': ['post'],
  '/api/v1/dead-letter': ['get'],
  '/api/v1/dead-letter/replay': ['post'],
  '/api/v1/alert-channels': ['get', 'post'],
  '/api/v1/alert-channels/{id}': ['delete', 'get', 'patch'],
  '/api/v1/alert-channels/{id}/test': ['post'],
  '/api/v1/alert-policy': ['get', 'put'],
  '/api/v1/incidents': ['get'],
  '/api/v1/queues': ['get'],
  '/api/v1/queues/{queue}/claim': ['post'],
  '/api/v1/runs/{runId}/heartbeat': ['post'],
  '/api/v1/runs/{runId}/complete': ['post'],
  '/api/v1/schedule/preview': ['get'],
  '/api/v1/signing-secret': ['get'],
  '/api/v1/signing-secret/rotate': ['post'],
  '/api/v1/limits': ['get'],
  '/api/v1/signing-secret/revoke-previous': ['post'],
  '/api/v1/healthz': ['get'],
  '/api/v1/openapi.json': ['get'],
};

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document according to Redocly', async () => {
    const doc = await fetchDocument();
    expect(doc.openapi).toBe('3.1.0');
    const report = await lint(doc, 'belfry');
    const errors = report.problems.filter((p) => p.severity === 'error');
    expect(errors, JSON.stringify(errors, null, 2)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);

  it('the validator does reject a broken document (so the check above means something)', async () => {
    const doc = await fetchDocument();
    doc.paths['/api/v1/jobs/{id}'].get.parameters = [];
    doc.components.schemas.Job.properties.status.type = 'enumeration';
    const report = await lint(doc, 'broken');
    expect(report.totals.errors).toBeGreaterThan(0);
    expect(report.problems.map((p) => p.ruleId)).toEqual(expect.arrayContaining(['struct', 'path-parameters-defined']));
  }, 60_000);

  it('documents every path and method of the contract, and nothing the router does not serve', async () => {
    const doc = await fetchDocument();
    for (const [path, methods] of Object.entries(CONTRACT)) {
      expect(Object.keys(doc.paths[path] ?? {}).sort(), path).toEqual([...methods].sort());
    }
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(CONTRACT).sort());
    expect(ROUTES).toHaveLength(Object.values(CONTRACT).flat().length);
  });

  it('is generated from the validating schemas: strict bodies, required fields, scopes, problem responses', async () => {
    const doc = await fetchDocument();
    const create = doc.components.schemas.JobCreate;
    expect(create.additionalProperties).toBe(false);
    expect(create.required).toEqual(['name', 'schedule', 'target']);
    expect(create.properties.name).toMatchObject({ minLength: 1, maxLength: 200 });
    expect(doc.components.schemas.Job.required).toEqual(
      expect.arrayContaining(['id', 'name', 'schedule', 'target', 'status', 'nextRunAt', 'createdAt', 'updatedAt']),
    );
    expect(doc.paths['/api/v1/jobs'].post.security).toEqual([{ apiKey: ['jobs:write'] }]);
    expect(doc.paths['/api/v1/healthz'].get.security).toEqual([]);
    expect(doc.paths['/api/v1/jobs'].post.responses['201']).toBeDefined();
    expect(doc.paths['/api/v1/jobs/{id}'].delete.responses['204']).toBeDefined();
    expect(doc.paths['/api/v1/jobs'].get.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    expect(doc.components.responses.BadRequest.content['application/problem+json'].schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
    const limit = doc.paths['/api/v1/jobs'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 500, default: 50 });
  });
});
