// The `pull` target kind (docs/api.md, "Pull queues"): runs wait in Belfry, in the tenant's queue
// of this name, until the tenant's own workers claim them over REST (POST
// /api/v1/queues/{queue}/claim). Nothing is delivered by the engine, so there is no handler and
// nothing secret; the queue name is all there is.
import { z } from 'zod';
import { defineKind } from '../kind';

/** Pull queue names (docs/api.md, "Targets"). */
export const PULL_QUEUE_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;

export const PullQueueName = z
  .string()
  .regex(PULL_QUEUE_PATTERN, { error: 'must be 1..100 characters of letters, digits, ".", "_" or "-"' })
  .meta({ description: 'The queue the tenant’s workers claim from', example: 'reports' });

export const PullTargetInput = z
  .strictObject({
    type: z.literal('pull'),
    queue: PullQueueName,
  })
  .meta({ id: 'PullTargetInput', description: 'Runs wait in a pull queue until one of your workers claims them' });

export const PullTarget = z
  .strictObject({
    type: z.literal('pull'),
    queue: z.string(),
  })
  .meta({ id: 'PullTarget' });

export const pullKind = defineKind({
  type: 'pull',
  lane: 'pull',
  queueOf: (target) => target.queue ?? '',
  input: PullTargetInput,
  view: PullTarget,
  toView: (stored) => ({ type: 'pull' as const, queue: stored.queue }),
  secrets: {},
});
