// Pull queues (docs/api.md, "Pull queues"): what a tenant's worker sends to claim, heartbeat
// and complete runs of `pull` targets, and what it gets back.
import { z } from 'zod';
import { PULL_QUEUE_PATTERN } from '@belfry/handlers/schemas';
import { NullableTimestamp, PageQuery, pageOf, Timestamp } from './common';
import { Run } from './resources';
import { storableText } from './text';

/** The most output a completion may carry: the attempt's responseSnippet column holds 4 KiB. */
export const MAX_OUTPUT_BYTES = 4096;
export const MAX_LEASE_SECONDS = 900;
export const MAX_WAIT_SECONDS = 30;

export const PullQueueParam = z
  .string()
  .regex(PULL_QUEUE_PATTERN, { error: 'must be 1..100 characters of letters, digits, ".", "_" or "-"' });

const WorkerName = z.string().min(1).max(200).superRefine(storableText).meta({
  description:
    'Who is claiming (e.g. host:pid), recorded on the attempt and shown on the Queues page; default: the API key',
  example: 'build-box-3:4711',
});

const LeaseSeconds = z
  .int()
  .min(5)
  .max(MAX_LEASE_SECONDS)
  .meta({ description: 'How long the lease lasts without a heartbeat (never past the job’s timeoutSeconds)' });

export const ClaimBody = z
  .strictObject({
    max: z.int().min(1).max(100).default(1).meta({ description: 'At most this many runs' }),
    leaseSeconds: LeaseSeconds.default(60),
    waitSeconds: z
      .int()
      .min(0)
      .max(MAX_WAIT_SECONDS)
      .default(0)
      .meta({ description: 'Long-poll: wait up to this long for a run to come due when none is' }),
    worker: WorkerName.optional(),
  })
  .meta({ id: 'ClaimRequest' });
export type ClaimBody = z.output<typeof ClaimBody>;

export const ClaimedRun = z
  .strictObject({
    run: Run.meta({ description: 'The run, `running`; `attempt` is the attempt this claim starts' }),
    payload: z.unknown().meta({ description: 'The job’s payload (null when it has none)' }),
    leaseToken: z.string().meta({ description: 'Proves the lease in heartbeat and complete' }),
    leaseExpiresAt: Timestamp,
  })
  .meta({ id: 'ClaimedRun' });
export type ClaimedRunView = Omit<z.output<typeof ClaimedRun>, 'payload'> & { payload: unknown };

export const ClaimResult = z.strictObject({ data: z.array(ClaimedRun) }).meta({ id: 'ClaimResult' });

export const HeartbeatBody = z
  .strictObject({
    leaseToken: z.string().min(1).max(2000),
    leaseSeconds: LeaseSeconds.optional().meta({ description: 'Default 60' }),
  })
  .meta({ id: 'HeartbeatRequest' });
export type HeartbeatBody = z.output<typeof HeartbeatBody>;

export const HeartbeatResult = z.strictObject({ leaseExpiresAt: Timestamp }).meta({ id: 'HeartbeatResult' });

export const CompleteBody = z
  .strictObject({
    leaseToken: z.string().min(1).max(2000),
    status: z.enum(['succeeded', 'failed']),
    error: z.string().max(2000).superRefine(storableText).optional().meta({ description: 'Why it failed' }),
    retryable: z
      .boolean()
      .default(true)
      .meta({ description: 'false: the run goes dead at once instead of being retried' }),
    retryAfterSeconds: z
      .int()
      .min(0)
      .max(86_400 * 7)
      .optional()
      .meta({ description: 'Retry no sooner than this (capped at the job’s maxDelaySeconds)' }),
    output: z
      .string()
      .superRefine(storableText)
      .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_OUTPUT_BYTES, {
        error: `must be at most ${MAX_OUTPUT_BYTES} bytes (send the tail)`,
      })
      .optional()
      .meta({ description: 'Up to 4 KiB of output, kept as the attempt’s responseSnippet' }),
  })
  .meta({ id: 'CompleteRequest' });
export type CompleteBody = z.output<typeof CompleteBody>;

export const PullQueueWorker = z
  .strictObject({ name: z.string(), lastSeenAt: Timestamp, lastClaimAt: NullableTimestamp })
  .meta({ id: 'PullQueueWorker' });

export const PullQueue = z
  .strictObject({
    name: z.string(),
    waiting: z.int().meta({ description: 'Runs waiting to be claimed (due now or later)' }),
    due: z.int().meta({ description: 'Of those, the ones due now' }),
    claimed: z.int().meta({ description: 'Runs claimed and not yet completed' }),
    lastClaimAt: NullableTimestamp.meta({ description: 'When a worker last claimed a run of this queue' }),
    workers: z.array(PullQueueWorker).meta({ description: 'Workers seen in the last 24 hours, latest first' }),
  })
  .meta({ id: 'PullQueue' });
export type PullQueueView = z.output<typeof PullQueue>;

export const PullQueueList = pageOf(PullQueue, 'PullQueueList');

export const ListQueuesQuery = PageQuery;
export type ListQueuesQuery = z.output<typeof ListQueuesQuery>;
