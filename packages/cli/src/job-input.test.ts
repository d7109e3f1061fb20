import { describe, expect, it } from 'vitest';
import { UsageError } from './errors';
import { buildJobBody, parseArgs, parseCpus, parseEnv, parseHeader, parseJson } from './job-input';

describe('buildJobBody from flags', () => {
  it('builds a cron job with every common field', () => {
    const body = buildJobBody(undefined, {
      name: 'report',
      cron: '0 7 * * *',
      timezone: 'Europe/Berlin',
      url: 'https://example.com/hook',
      method: 'put',
      header: { 'x-team': 'billing' },
      payload: { a: 1 },
      maxAttempts: 3,
      timeout: 60,
      priority: 'high',
      misfire: 'skip',
      overlap: 'skip',
    });
    expect(body).toEqual({
      name: 'report',
      schedule: { type: 'cron', expression: '0 7 * * *', timezone: 'Europe/Berlin' },
      target: { type: 'http', url: 'https://example.com/hook', method: 'PUT', headers: { 'x-team': 'billing' } },
      payload: { a: 1 },
      retry: { maxAttempts: 3 },
      timeoutSeconds: 60,
      priority: 'high',
      misfirePolicy: 'skip',
      overlapPolicy: 'skip',
    });
  });

  it('builds interval and one-off schedules and leaves server defaults alone', () => {
    expect(buildJobBody(undefined, { name: 'n', every: 300, url: 'https://x.test' })).toEqual({
      name: 'n',
      schedule: { type: 'interval', everySeconds: 300 },
      target: { type: 'http', url: 'https://x.test' },
    });
    expect(
      buildJobBody(undefined, { name: 'n', at: '2026-12-01T07:00:00.000Z', url: 'https://x.test' }).schedule,
    ).toEqual({
      type: 'once',
      runAt: '2026-12-01T07:00:00.000Z',
    });
  });

  it('names every missing required flag', () => {
    expect(() => buildJobBody(undefined, {})).toThrow(
      /needs --name, a schedule \(--cron, --every or --at\) and --url, --queue or --image/,
    );
    expect(() => buildJobBody(undefined, { name: 'n', cron: '* * * * *' })).toThrow(/needs --url/);
    expect(() => buildJobBody(undefined, {})).toThrow(UsageError);
  });

  it('refuses two schedules and a lone --timezone', () => {
    expect(() => buildJobBody(undefined, { name: 'n', cron: '* * * * *', every: 5, url: 'https://x.test' })).toThrow(
      /only one of/,
    );
    expect(() => buildJobBody(undefined, { name: 'n', every: 5, timezone: 'UTC', url: 'https://x.test' })).toThrow(
      /--timezone applies only/,
    );
  });
});

describe('buildJobBody from --file', () => {
  const file = {
    name: 'from-file',
    schedule: { type: 'cron', expression: '0 7 * * *' },
    target: { type: 'http', url: 'https://a.test', method: 'POST', headers: { a: '1' } },
    retry: { maxAttempts: 2, initialDelaySeconds: 1, maxDelaySeconds: 5 },
    extra: 'sent as is, for the server to judge',
  };

  it('sends the file as the body', () => {
    expect(buildJobBody(file, {})).toEqual(file);
  });

  it('lets flags override fields, merging headers and retry', () => {
    const body = buildJobBody(file, { name: 'other', header: { b: '2' }, maxAttempts: 9, timezone: 'Asia/Tokyo' });
    expect(body.name).toBe('other');
    expect(body.schedule).toEqual({ type: 'cron', expression: '0 7 * * *', timezone: 'Asia/Tokyo' });
    expect(body.target).toEqual({ type: 'http', url: 'https://a.test', method: 'POST', headers: { a: '1', b: '2' } });
    expect(body.retry).toEqual({ maxAttempts: 9, initialDelaySeconds: 1, maxDelaySeconds: 5 });
    expect(file.name).toBe('from-file');
  });

  it('does not demand flags the file may lack (the server says what is missing)', () => {
    expect(buildJobBody({}, {})).toEqual({});
  });

  it('refuses a file that is not an object', () => {
    expect(() => buildJobBody([1], {})).toThrow(/JSON object/);
    expect(() => buildJobBody('x', {})).toThrow(/JSON object/);
  });
});

describe('container flags', () => {
  it('builds a container target, merging env and splitting the command', () => {
    const body = buildJobBody(undefined, {
      name: 'n',
      every: 60,
      image: 'registry.example.com/jobs/report:1.4',
      command: parseArgs('report --daily', '--command'),
      env: parseEnv('B=2', parseEnv('A=1=x', undefined)),
      memoryMb: 256,
      cpus: parseCpus('0.5'),
      network: 'bridge',
      pullPolicy: 'never',
      user: '1000',
      workdir: '/app',
    });
    expect(body.target).toEqual({
      type: 'container',
      image: 'registry.example.com/jobs/report:1.4',
      command: ['report', '--daily'],
      env: { A: '1=x', B: '2' },
      memoryMb: 256,
      cpus: 0.5,
      network: 'bridge',
      pullPolicy: 'never',
      user: '1000',
      workingDir: '/app',
    });
    expect(parseArgs('["sh", "-c", "echo hi"]', '--command')).toEqual(['sh', '-c', 'echo hi']);
    expect(() => parseArgs('[1]', '--command')).toThrow(/JSON array of strings/);
    expect(() => parseEnv('=x', undefined)).toThrow(/NAME=value/);
    expect(() => parseCpus('-1')).toThrow(/positive/);
  });

  it('refuses HTTP and container flags together', () => {
    expect(() => buildJobBody(undefined, { name: 'n', every: 5, url: 'https://x.test', image: 'a' })).toThrow(
      /--url does not apply to container targets/,
    );
    expect(() => buildJobBody(undefined, { name: 'n', every: 5, image: 'a', header: { a: '1' } })).toThrow(UsageError);
    expect(() => buildJobBody(undefined, { name: 'n', every: 5, url: 'https://x.test', memoryMb: 64 })).toThrow(
      /--memory-mb applies only to container targets \(this target is http\)/,
    );
  });

  it("merges env flags over a file's container target, and starts afresh when the kind changes", () => {
    const file = { target: { type: 'container', image: 'a:1', env: { A: '1' }, memoryMb: 128 } };
    expect(buildJobBody(file, { env: { B: '2' }, cpus: 2 }).target).toEqual({
      type: 'container',
      image: 'a:1',
      env: { A: '1', B: '2' },
      memoryMb: 128,
      cpus: 2,
    });
    const http = { target: { type: 'http', url: 'https://a.test', method: 'GET' } };
    expect(buildJobBody(http, { image: 'b:2' }).target).toEqual({ type: 'container', image: 'b:2' });
  });
});

describe('flag values', () => {
  it('parses repeatable headers', () => {
    const one = parseHeader('x-team: billing', undefined);
    expect(parseHeader('Authorization:Bearer a:b', one)).toEqual({ 'x-team': 'billing', Authorization: 'Bearer a:b' });
    expect(() => parseHeader('no-colon', undefined)).toThrow(/name:value/);
    expect(() => parseHeader(':value', undefined)).toThrow(/name:value/);
  });

  it('parses JSON with the parser complaint', () => {
    expect(parseJson('{"a":[1]}', '--payload')).toEqual({ a: [1] });
    expect(() => parseJson('{a:1}', '--payload')).toThrow(/--payload is not valid JSON/);
  });
});

describe('buildJobBody: target kinds', () => {
  const base = { name: 'n', every: 60 };

  it('builds an amqp target, the kind told by the URL scheme', () => {
    expect(
      buildJobBody(undefined, {
        ...base,
        url: 'amqps://u:p@rabbit.test/vh',
        exchange: 'jobs',
        routingKey: 'reports',
        transient: true,
        header: { 'x-team': 'billing' },
      }).target,
    ).toEqual({
      type: 'amqp',
      url: 'amqps://u:p@rabbit.test/vh',
      exchange: 'jobs',
      routingKey: 'reports',
      persistent: false,
      headers: { 'x-team': 'billing' },
    });
  });

  it('builds a nats target, and --type wins over the scheme', () => {
    expect(buildJobBody(undefined, { ...base, url: 'nats://n.test:4222', subject: 'reports.daily' }).target).toEqual({
      type: 'nats',
      url: 'nats://n.test:4222',
      subject: 'reports.daily',
    });
    expect(buildJobBody(undefined, { ...base, type: 'nats', url: 'x://y', subject: 's' }).target?.type).toBe('nats');
  });

  it("refuses a flag of another kind's target", () => {
    expect(() => buildJobBody(undefined, { ...base, url: 'https://x.test', exchange: 'jobs' })).toThrow(
      /--exchange applies only to amqp targets \(this target is http\)/,
    );
    expect(() => buildJobBody(undefined, { ...base, url: 'amqp://r.test', method: 'GET', exchange: 'e' })).toThrow(
      /--method applies only to http targets/,
    );
    expect(() => buildJobBody(undefined, { ...base, url: 'amqp://r.test', subject: 's' })).toThrow(UsageError);
  });

  it('keeps the kind of the file when only some target flags are given', () => {
    const file = { target: { type: 'amqp', url: 'amqp://r.test', exchange: 'a' } };
    expect(buildJobBody(file, { exchange: 'b' }).target).toEqual({ type: 'amqp', url: 'amqp://r.test', exchange: 'b' });
  });
});

describe('jobs create --queue', () => {
  it('makes a pull target, and refuses webhook flags beside it', () => {
    expect(buildJobBody(undefined, { name: 'n', cron: '0 * * * *', queue: 'reports' }).target).toEqual({
      type: 'pull',
      queue: 'reports',
    });
    expect(() => buildJobBody(undefined, { name: 'n', cron: '0 * * * *', queue: 'q', url: 'https://e.com' })).toThrow(
      /--queue .* cannot be combined with --url/,
    );
  });

  it("refuses another kind's flags beside --queue, and --queue beside another kind", () => {
    expect(() => buildJobBody(undefined, { name: 'n', every: 60, queue: 'q', exchange: 'e' })).toThrow(
      /--exchange applies only to amqp targets \(this target is pull\)/,
    );
    expect(() => buildJobBody(undefined, { name: 'n', every: 60, type: 'nats', queue: 'q' })).toThrow(
      /--queue applies only to pull targets \(this target is nats\)/,
    );
  });

  it("replaces a file's target of another kind, and keeps a file's pull queue", () => {
    const http = { target: { type: 'http', url: 'https://x.test', headers: { a: 'b' } } };
    expect(buildJobBody(http, { queue: 'reports' }).target).toEqual({ type: 'pull', queue: 'reports' });
    const pull = { target: { type: 'pull', queue: 'reports' } };
    expect(buildJobBody(pull, { type: 'pull' }).target).toEqual({ type: 'pull', queue: 'reports' });
  });
});
