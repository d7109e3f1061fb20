import { describe, expect, it } from 'vitest';
import { table, truncate } from './format';
import type { Job, Run } from '@belfry/client';
import { deadLetterTable, describeSchedule, jobDetail, jobsTable, runDetail, runsTable } from './views';

const now = new Date('2026-03-01T12:00:00Z');

const job: Job = {
  id: 'job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T',
  name: 'daily-report',
  schedule: { type: 'cron', expression: '0 7 * * *', timezone: 'Europe/Berlin' },
  target: { type: 'http', url: 'https://example.com/hook', method: 'POST', headers: { 'x-team': 'billing' } },
  payload: { any: 'json' },
  retry: { maxAttempts: 5, initialDelaySeconds: 10, maxDelaySeconds: 3600 },
  timeoutSeconds: 30,
  priority: 'normal',
  misfirePolicy: 'run_once',
  overlapPolicy: 'allow',
  jitterSeconds: 0,
  status: 'active',
  nextRunAt: '2026-03-02T06:00:00.000Z',
  createdAt: '2026-03-01T11:00:00.000Z',
  updatedAt: '2026-03-01T11:00:00.000Z',
};

const run: Run = {
  id: 'run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T',
  jobId: job.id,
  scheduledTime: '2026-03-01T11:55:00.000Z',
  dueAt: '2026-03-01T11:55:00.000Z',
  status: 'dead',
  skipReason: null,
  attempt: 2,
  trigger: 'schedule',
  replayOf: null,
  createdAt: '2026-03-01T11:55:00.000Z',
  startedAt: '2026-03-01T11:55:00.000Z',
  finishedAt: '2026-03-01T11:55:02.500Z',
  attempts: [
    {
      attempt: 1,
      workerId: 'node-a',
      startedAt: '2026-03-01T11:55:00.000Z',
      finishedAt: '2026-03-01T11:55:00.120Z',
      status: 'failed',
      httpStatus: 503,
      durationMs: 120,
      error: 'HTTP 503',
      responseSnippet: 'unavailable',
      exitCode: null,
    },
    {
      attempt: 2,
      workerId: 'node-b',
      startedAt: '2026-03-01T11:55:02.000Z',
      finishedAt: '2026-03-01T11:55:02.500Z',
      status: 'failed',
      httpStatus: 500,
      durationMs: 500,
      error: 'HTTP 500',
      responseSnippet: 'boom',
      exitCode: null,
    },
  ],
};

describe('table', () => {
  it('aligns columns to the widest cell and leaves no trailing spaces', () => {
    const out = table(
      [{ header: 'ID' }, { header: 'NAME' }, { header: 'X' }],
      [
        ['a', 'longer name', '1'],
        ['bbbb', 'n', ''],
      ],
    );
    expect(out.split('\n')).toEqual(['ID    NAME         X', 'a     longer name  1', 'bbbb  n']);
  });

  it('cuts long cells with an ellipsis and flattens newlines', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('line one\nline two', 80)).toBe('line one line two');
    expect(table([{ header: 'E', max: 5 }], [['0123456789']])).toBe('E\n0123…');
  });
});

describe('views', () => {
  it('describes each kind of schedule', () => {
    expect(describeSchedule(job.schedule)).toBe('cron 0 7 * * * (Europe/Berlin)');
    expect(describeSchedule({ type: 'cron', expression: '*/5 * * * *', timezone: 'UTC' })).toBe('cron */5 * * * *');
    expect(describeSchedule({ type: 'interval', everySeconds: 5400 })).toBe('every 1h30m');
    expect(describeSchedule({ type: 'once', runAt: '2026-12-01T07:00:00.000Z' })).toBe(
      'once at 2026-12-01T07:00:00.000Z',
    );
  });

  it('lists jobs in a table with relative next runs', () => {
    const lines = jobsTable([job], now).split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+SCHEDULE\s+NEXT RUN\s+TARGET$/);
    expect(lines[1]).toContain('daily-report');
    expect(lines[1]).toContain('in 18h');
    expect(lines[1]).toContain('POST https://example.com/hook');
    expect(jobsTable([], now)).toBe('No jobs.');
  });

  it('shows one job as aligned key/value lines', () => {
    const out = jobDetail(job, now);
    expect(out).toContain('name:      daily-report');
    expect(out).toContain('headers:   x-team: billing');
    expect(out).toContain('retry:     5 attempts, backoff 10s up to 1h');
    expect(out).toContain('jitter:    -');
    expect(jobDetail({ ...job, jitterSeconds: 90 }, now)).toContain('jitter:    up to 1m30s after each occurrence');
    expect(out).toContain('next run:  2026-03-02T06:00:00.000Z (in 18h)');
  });

  it('shows runs and a run with its attempts', () => {
    expect(runsTable([run], now)).toMatch(/dead\s+schedule\s+5m ago\s+2\s+2\.5s\s+4m ago/);
    const detail = runDetail(run, now);
    expect(detail).toMatch(/#\s+STATUS\s+RESULT\s+DURATION\s+STARTED\s+WORKER\s+ERROR/);
    expect(detail).toMatch(/1\s+failed\s+503\s+120ms\s+5m ago\s+node-a\s+HTTP 503/);
    expect(detail).toContain('last response: boom');
    const container = { ...run.attempts[0]!, httpStatus: null, exitCode: 3, error: 'exited with code 3' };
    expect(runDetail({ ...run, attempts: [container] }, now)).toMatch(/1\s+failed\s+exit 3\s+120ms/);
    expect(runDetail({ ...run, status: 'skipped', skipReason: 'overlap', attempts: [] }, now)).toContain(
      'skipped (overlap)',
    );
  });

  it('lists the dead letter with its replay and the last error', () => {
    expect(deadLetterTable([{ ...run, replayedBy: null }], now)).toMatch(/HTTP 500$/);
    expect(deadLetterTable([{ ...run, replayedBy: null }], now)).toMatch(/REPLAYED BY[\s\S]*\s-\s+HTTP 500$/);
    const replayed = deadLetterTable([{ ...run, replayedBy: 'run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T' }], now);
    expect(replayed).toMatch(/run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T\s+HTTP 500$/);
    expect(deadLetterTable([], now)).toBe('The dead letter is empty.');
  });
});
