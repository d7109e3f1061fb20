import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { logLines } from '../../../test/log-lines';
import { createLogger, FailureStreak, withIds } from './index';

describe('createLogger', () => {
  it('never writes secrets, API keys, passwords or credential headers', () => {
    const { lines, destination } = logLines();
    const log = createLogger({ level: 'info', base: { service: 'test' }, destination });
    log.info(
      {
        apiKey: 'bk_live_1',
        password: 'hunter2',
        target: { secret: 's3', token: 't0' },
        headers: { authorization: 'Bearer x', cookie: 'c=1', 'x-api-key': 'k', accept: 'json' },
        request: { headers: { authorization: 'Bearer y' } },
      },
      'hello',
    );
    expect(lines).toHaveLength(1);
    const text = JSON.stringify(lines[0]);
    for (const secret of ['bk_live_1', 'hunter2', 's3', 't0', 'Bearer x', 'c=1', '"k"', 'Bearer y']) {
      expect(text).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({ service: 'test', msg: 'hello', headers: { accept: 'json' } });
  });

  it('logs an error without the live objects a library hung on it (a pg client), keeping its own fields', () => {
    const { lines, destination } = logLines();
    const log = createLogger({ level: 'info', base: { service: 'test' }, destination });
    const err = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      severity: 'FATAL',
      detail: { table: 'runs' },
      client: new pg.Client({ connectionString: 'postgres://belfry:hunter2@127.0.0.1:5432/belfry' }),
      cause: new Error('socket closed'),
    });
    log.warn({ err }, 'queue error');
    const line = lines[0] as { err: Record<string, unknown> };
    expect(line.err).toMatchObject({
      type: 'Error',
      // pino's serializer adds the cause to the message and the stack
      message: 'terminating connection due to administrator command: socket closed',
      code: '57P01',
      severity: 'FATAL',
      detail: { table: 'runs' },
    });
    expect(String(line.err.stack)).toContain('socket closed');
    expect(line.err).not.toHaveProperty('client');
    const text = JSON.stringify(line);
    for (const part of ['connectionParameters', 'secretKey', 'hunter2', '127.0.0.1']) expect(text).not.toContain(part);
    // a non-error under err stays as given
    log.warn({ err: 'just a message' }, 'x');
    expect(lines[1]).toMatchObject({ err: 'just a message' });
  });

  it('child loggers carry the ids a line is about, and only those that are set', () => {
    const { lines, destination } = logLines();
    const log = createLogger({ level: 'info', base: { service: 'test' }, destination });
    withIds(log, { tenantId: 'ten_1', jobId: 'job_1', runId: undefined }).info('about a job');
    withIds(log, {}).warn('about nothing');
    expect(lines[0]).toMatchObject({ tenantId: 'ten_1', jobId: 'job_1', msg: 'about a job' });
    expect(lines[0]).not.toHaveProperty('runId');
    expect(lines[1]).toMatchObject({ level: 40, msg: 'about nothing' });
  });

  it('a logger without child() gets the ids added to each line, its own fields winning', () => {
    const lines: Array<[string, object, string | undefined]> = [];
    const record = (level: string) => (obj: object | string, msg?: string) => {
      lines.push(typeof obj === 'string' ? [level, {}, obj] : [level, obj, msg]);
    };
    const plain = { info: record('info'), warn: record('warn'), error: record('error') };
    const log = withIds(plain, { tenantId: 'ten_1', userId: '', runId: null });
    log.info({ status: 200 }, 'request');
    log.warn('refused');
    log.error({ tenantId: 'ten_2' }, 'failed');
    expect(lines).toEqual([
      ['info', { tenantId: 'ten_1', status: 200 }, 'request'],
      ['warn', { tenantId: 'ten_1' }, 'refused'],
      ['error', { tenantId: 'ten_2' }, 'failed'],
    ]);
    expect(withIds(plain, { jobId: undefined })).toBe(plain);
  });
});

describe('FailureStreak', () => {
  it('reports the first failure in full, then the 2nd, 4th, 8th … briefly, and the recovery once', () => {
    const { lines, destination } = logLines();
    const log = createLogger({ level: 'info', base: { service: 'test' }, destination });
    const streak = new FailureStreak(log, 'alert dispatch');
    const down = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const counts = Array.from({ length: 60 }, () => streak.failed(down, { loop: 'dispatch' }));
    expect(counts.at(-1)).toBe(60);
    streak.succeeded();
    streak.succeeded();
    expect(lines.map((l) => [l.level, l.msg, l.failures])).toEqual([
      [50, 'alert dispatch failed', undefined],
      [40, 'alert dispatch failed again', 2],
      [40, 'alert dispatch failed again', 4],
      [40, 'alert dispatch failed again', 8],
      [40, 'alert dispatch failed again', 16],
      [40, 'alert dispatch failed again', 32],
      [30, 'alert dispatch works again', 60],
    ]);
    expect(lines[0]).toMatchObject({ loop: 'dispatch', err: { message: down.message } });
    expect(String((lines[0] as { err: { stack: string } }).err.stack)).toContain('ECONNREFUSED');
    expect(lines[1]).toMatchObject({ loop: 'dispatch', err: down.message });
    // a new streak starts over, at the level given
    const warnOnly = new FailureStreak(log, 'heartbeat', 'warn');
    warnOnly.failed('timeout');
    expect(lines.at(-1)).toMatchObject({ level: 40, msg: 'heartbeat failed', err: 'timeout' });
  });

  it('with quietMs, a source that never reports success starts a new streak after a quiet spell', () => {
    const { lines, destination } = logLines();
    const log = createLogger({ level: 'info', base: { service: 'test' }, destination });
    let now = 1_000_000;
    const streak = new FailureStreak(log, 'queue', 'warn', { quietMs: 30_000, now: () => now });
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      counts.push(streak.failed(new Error('terminating connection')));
      now += 1_000;
    }
    now += 30_001;
    counts.push(streak.failed(new Error('terminating connection')));
    expect(counts).toEqual([1, 2, 3, 4, 5, 1]);
    expect(lines.map((l) => [l.msg, l.failures])).toEqual([
      ['queue failed', undefined],
      ['queue failed again', 2],
      ['queue failed again', 4],
      ['queue failed', undefined],
    ]);
  });
});
