import { describe, expect, it } from 'vitest';
import { buildHeaders, redactHeaders } from './http/http-request';
import { DERIVED_HEADERS, storedHeaders, withDerivedHeaders } from './stored-headers';
import { makeContext } from './testing';
import { messageHeaders } from './webhook-headers';

describe('stored request headers', () => {
  const ctx = makeContext({ attempt: 3 });
  const of = {
    runId: ctx.runId,
    jobId: ctx.jobId,
    scheduledTime: ctx.scheduledTime.toISOString(),
    attempt: ctx.attempt,
  };

  it('keep what the run does not say, and read back as what was sent (redacted)', () => {
    const body = JSON.stringify({ a: 1 });
    const { headers } = buildHeaders(
      { 'X-Team': 'ops', Authorization: 'Bearer secret' },
      body,
      true,
      1_764_600_000,
      ctx,
      'Belfry-test',
    );
    const sent = redactHeaders(headers);
    const stored = storedHeaders(sent);
    expect(stored).toEqual({
      'x-team': 'ops',
      authorization: '***',
      'content-type': 'application/json',
      'user-agent': 'Belfry-test',
      'webhook-timestamp': '1764600000',
    });
    for (const name of DERIVED_HEADERS) expect(stored).not.toHaveProperty(name);
    expect(withDerivedHeaders(stored, of)).toEqual(sent);
  });

  it("a broker message's headers read back the same way", () => {
    const { headers } = messageHeaders({ 'X-Source': 'belfry' }, ctx, 1_764_600_000, '{}');
    const sent = redactHeaders(headers);
    expect(withDerivedHeaders(storedHeaders(sent), of)).toEqual(sent);
  });

  it('rows stored with every header read back unchanged', () => {
    const { headers } = buildHeaders(undefined, '', false, 1_764_600_000, ctx, 'Belfry-test');
    const full = redactHeaders(headers);
    expect(withDerivedHeaders(full, of)).toEqual(full);
  });
});
