// The `nats` target kind (docs/api.md, "Targets"): a message published to NATS JetStream per
// attempt. What a client sends, what the API answers (the URL's password masked) and which fields
// are secrets. The URL may carry a user and password, or a token as its user. Its runs travel in
// the push lane.
import { hasControlCharacter, textProblem } from '@belfry/core';
import { z } from 'zod';
import { brokerUrlSchema, maskUrlPassword } from '../brokers/broker-url';
import { TargetHeaders } from '../fields';
import { defineKind } from '../kind';

export const MAX_SUBJECT_LENGTH = 255;

/** Null for a subject a message can be published to, else why not (no wildcards, no empty tokens). */
function subjectProblem(value: string): string | null {
  if (value === '') return 'is required';
  const text = textProblem(value);
  if (text) return text;
  if (hasControlCharacter(value, true)) return 'must not contain spaces or control characters';
  const tokens = value.split('.');
  if (tokens.some((t) => t === '')) return 'must not have empty tokens (leading, trailing or double dots)';
  if (tokens.some((t) => t === '*' || t === '>' || t.includes('*') || t.includes('>'))) {
    return 'must not contain the wildcards * or > (a message is published to one subject)';
  }
  return null;
}

export const NatsUrl = brokerUrlSchema({
  schemes: ['nats', 'tls'],
  path: false,
  example: 'nats://user:pass@nats.example.com:4222',
  description:
    'nats:// (or tls:// to require TLS) URL of a NATS server with JetStream, with a user and password (or a token as the user) to log in; the password reads back as ***',
});

export const NatsTargetInput = z
  .strictObject({
    type: z.literal('nats'),
    url: NatsUrl,
    subject: z
      .string()
      .max(MAX_SUBJECT_LENGTH, { error: `must be at most ${MAX_SUBJECT_LENGTH} characters` })
      .superRefine((value, ctx) => {
        const problem = subjectProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .meta({ description: 'The subject to publish to; a JetStream stream must capture it', example: 'reports.daily' }),
    headers: TargetHeaders.default({}),
  })
  .meta({
    id: 'NatsTargetInput',
    description:
      'A message published per attempt to NATS JetStream with Nats-Msg-Id = the run id (JetStream drops duplicates of a retried attempt); success is the stream’s PubAck',
  });

export const NatsTarget = z
  .strictObject({
    type: z.literal('nats'),
    url: z.string(),
    subject: z.string(),
    headers: z.record(z.string(), z.string()),
  })
  .meta({ id: 'NatsTarget' });

export const natsKind = defineKind({
  type: 'nats',
  lane: 'push',
  input: NatsTargetInput,
  view: NatsTarget,
  toView: (stored) => ({
    type: 'nats' as const,
    url: maskUrlPassword(stored.url),
    subject: stored.subject,
    headers: stored.headers ?? {},
  }),
  secrets: { urlPasswords: ['url'], namedMaps: ['headers'] },
});
