// The `amqp` target kind (docs/api.md, "Targets"): a message published to a RabbitMQ (AMQP 0-9-1)
// exchange per attempt. What a client sends, what the API answers (the URL's password masked) and
// which fields are secrets. The URL may carry credentials — that is how AMQP logs in — and names at
// most one virtual host. Its runs travel in the push lane.
import { textProblem } from '@belfry/core';
import { z } from 'zod';
import { brokerUrlSchema, maskUrlPassword } from '../brokers/broker-url';
import { TargetHeaders } from '../fields';
import { defineKind } from '../kind';

// AMQP short strings: at most 255 bytes.
const MAX_SHORTSTR_BYTES = 255;
// RabbitMQ's rule for exchange names (letters, digits, hyphen, underscore, period, colon).
const EXCHANGE_NAME = /^[A-Za-z0-9_.:-]*$/;

function shortString(what: string) {
  return z.string().superRefine((value, ctx) => {
    if (Buffer.byteLength(value) > MAX_SHORTSTR_BYTES) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_SHORTSTR_BYTES} bytes (an AMQP ${what})` });
    }
    const text = textProblem(value);
    if (text) ctx.addIssue({ code: 'custom', message: text });
  });
}

export const AmqpUrl = brokerUrlSchema({
  schemes: ['amqp', 'amqps'],
  path: true,
  example: 'amqp://user:pass@rabbit.example.com:5672/vhost',
  description:
    'amqp:// or amqps:// (TLS) URL of the broker, with the user and password to log in as and an optional virtual host; the password reads back as ***',
});

export const AmqpTargetInput = z
  .strictObject({
    type: z.literal('amqp'),
    url: AmqpUrl,
    exchange: shortString('exchange name')
      .regex(EXCHANGE_NAME, { error: 'may contain only letters, digits, "-", "_", "." and ":"' })
      .meta({
        description: 'The exchange to publish to; "" is the default exchange (routing key = queue name)',
        example: 'jobs',
      }),
    routingKey: shortString('routing key')
      .default('')
      .meta({ description: 'The routing key of every message', example: 'reports' }),
    persistent: z.boolean().default(true).meta({ description: 'Publish persistent messages (delivery mode 2)' }),
    headers: TargetHeaders.default({}),
  })
  .meta({
    id: 'AmqpTargetInput',
    description:
      'A message published per attempt to a RabbitMQ / AMQP 0-9-1 exchange with publisher confirms and `mandatory` set; an unroutable message is a failed attempt',
  });

export const AmqpTarget = z
  .strictObject({
    type: z.literal('amqp'),
    url: z.string(),
    exchange: z.string(),
    routingKey: z.string(),
    persistent: z.boolean(),
    headers: z.record(z.string(), z.string()),
  })
  .meta({ id: 'AmqpTarget' });

export const amqpKind = defineKind({
  type: 'amqp',
  lane: 'push',
  input: AmqpTargetInput,
  view: AmqpTarget,
  toView: (stored) => ({
    type: 'amqp' as const,
    // Masked here too, so a password never leaves in an answer whatever else does.
    url: maskUrlPassword(stored.url),
    exchange: stored.exchange,
    routingKey: stored.routingKey ?? '',
    persistent: stored.persistent ?? true,
    headers: stored.headers ?? {},
  }),
  secrets: { urlPasswords: ['url'], namedMaps: ['headers'] },
});
