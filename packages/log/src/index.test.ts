import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, withIds } from './index';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('never writes secrets, API keys, passwords or credential headers', () => {
    const { lines, destination } = capture();
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

  it('child loggers carry the ids a line is about, and only those that are set', () => {
    const { lines, destination } = capture();
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
