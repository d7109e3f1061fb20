import { describe, expect, it } from 'vitest';
import { JobCreateInput, JobPatchInput } from './job-input';
import { jsonDepth } from './target';
import { fieldErrors } from './validate';

const base = { name: 'n', schedule: { type: 'interval', everySeconds: 60 }, target: { url: 'https://example.com' } };

function errorsOf(input: unknown) {
  const r = JobCreateInput.safeParse(input);
  return r.success ? [] : fieldErrors(r.error);
}

describe('JobCreateInput', () => {
  it('applies the contract defaults', () => {
    expect(JobCreateInput.parse(base)).toEqual({
      name: 'n',
      schedule: { type: 'interval', everySeconds: 60 },
      target: { type: 'http', url: 'https://example.com', method: 'POST', headers: {} },
      retry: { maxAttempts: 5, initialDelaySeconds: 10, maxDelaySeconds: 3600 },
      timeoutSeconds: 30,
      priority: 'normal',
      misfirePolicy: 'run_once',
      overlapPolicy: 'allow',
      jitterSeconds: 0,
    });
  });

  it('turns runAt into a Date and requires a zone', () => {
    const once = JobCreateInput.parse({ ...base, schedule: { type: 'once', runAt: '2026-12-01T07:00:00+02:00' } });
    expect(once.schedule).toEqual({ type: 'once', runAt: new Date('2026-12-01T05:00:00Z') });
    expect(errorsOf({ ...base, schedule: { type: 'once', runAt: '2026-12-01 07:00' } })[0]?.path).toBe(
      'schedule.runAt',
    );
  });

  it('allows header values with tabs and unicode, refuses reserved names in any case', () => {
    const ok = JobCreateInput.parse({ ...base, target: { url: 'https://e.com', headers: { 'X-Note': 'a\tb ü' } } });
    expect(ok.target).toMatchObject({ headers: { 'X-Note': 'a\tb ü' } });
    for (const name of ['WEBHOOK-SIGNATURE', 'Content-Length', 'Transfer-Encoding', 'Connection', 'Belfry-Job-Id']) {
      expect(errorsOf({ ...base, target: { url: 'https://e.com', headers: { [name]: 'x' } } }), name).toEqual([
        { path: `target.headers.${name}`, message: expect.stringContaining('cannot be overridden') },
      ]);
    }
  });

  it('reports every unknown key with its own path', () => {
    expect(
      errorsOf({ ...base, a: 1, target: { url: 'https://e.com', b: 2 } })
        .map((e) => e.path)
        .sort(),
    ).toEqual(['a', 'target.b']);
  });

  it('refuses text PostgreSQL cannot store, wherever it is', () => {
    expect(errorsOf({ ...base, payload: { a: ['ok', 'x\u0000'] } })).toEqual([
      { path: 'payload.a.1', message: expect.stringContaining('NUL') },
    ]);
    expect(errorsOf({ ...base, target: { url: 'https://e.com', headers: { 'x-a': '\ud800' } } })[0]?.path).toBe(
      'target.headers.x-a',
    );
    expect(errorsOf({ ...base, name: '\udc00x' })[0]?.path).toBe('name');
    expect(JobCreateInput.safeParse({ ...base, name: 'emoji \ud83d\ude00 ok' }).success).toBe(true);
  });

  it('accepts payloads up to the limits', () => {
    const deep = (n: number): unknown => (n === 0 ? null : [deep(n - 1)]);
    expect(JobCreateInput.safeParse({ ...base, payload: deep(32) }).success).toBe(true);
    expect(JobCreateInput.safeParse({ ...base, payload: deep(33) }).success).toBe(false);
    expect(JobCreateInput.safeParse({ ...base, payload: 'x'.repeat(256 * 1024 - 2) }).success).toBe(true);
    expect(JobCreateInput.safeParse({ ...base, payload: 'x'.repeat(256 * 1024 - 1) }).success).toBe(false);
    expect(JobCreateInput.safeParse({ ...base, payload: false }).success).toBe(true);
  });
});

describe('JobPatchInput', () => {
  it('has no defaults, so absent fields stay absent', () => {
    expect(JobPatchInput.parse({ retry: { maxAttempts: 2 } })).toEqual({ retry: { maxAttempts: 2 } });
    expect(JobPatchInput.parse({ payload: null })).toEqual({ payload: null });
  });
});

describe('jsonDepth', () => {
  it('counts containers, iteratively', () => {
    expect(jsonDepth(1, 32)).toBe(0);
    expect(jsonDepth({ a: [1, { b: {} }] }, 32)).toBe(4);
    let v: unknown = 0;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(jsonDepth(v, 32)).toBe(33); // stops early, no stack overflow
  });
});
