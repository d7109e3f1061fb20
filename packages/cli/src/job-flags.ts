// The vocabulary of `jobs create`: its flags, the body they build, which flag sets which body
// field (so a validation error names the flag), and the small helpers both builders share.
import type { JobCreate, MisfirePolicy, OverlapPolicy, Priority, TargetInput } from '@belfry/client';
import type { FieldHints } from './errors';

type HttpTargetInput = Extract<TargetInput, { type?: 'http' }>;

/**
 * The body `jobs create` sends: a JobCreate as far as flags and file go. A file may leave
 * fields out or add unknown ones; the server's validation is what reports them.
 */
export type JobCreateBody = Partial<Omit<JobCreate, 'target'>> & {
  target?: Partial<HttpTargetInput> | Partial<TargetInput>;
  [field: string]: unknown;
};

export interface JobCreateFlags {
  name?: string;
  cron?: string;
  timezone?: string;
  /** seconds, parsed from --every */
  every?: number;
  /** UTC ISO instant, parsed from --at */
  at?: string;
  /** the target kind; default from the --url scheme (amqp(s):// → amqp, nats:// or tls:// → nats, else http) */
  type?: string;
  url?: string;
  /** a pull target's queue, instead of --url */
  queue?: string;
  method?: string;
  header?: Record<string, string>;
  /** amqp: the exchange ("" = the default exchange) */
  exchange?: string;
  /** amqp: the routing key */
  routingKey?: string;
  /** amqp: publish transient (non-persistent) messages */
  transient?: boolean;
  /** nats: the subject */
  subject?: string;
  image?: string;
  /** parsed --command / --entrypoint: a JSON array, or words split on spaces */
  command?: string[];
  entrypoint?: string[];
  env?: Record<string, string>;
  memoryMb?: number;
  cpus?: number;
  network?: string;
  pullPolicy?: string;
  user?: string;
  workdir?: string;
  /** parsed --payload or --payload-file content */
  payload?: unknown;
  maxAttempts?: number;
  timeout?: number;
  priority?: Priority;
  misfire?: MisfirePolicy;
  overlap?: OverlapPolicy;
  /** seconds, parsed from --jitter */
  jitter?: number;
}

/** Which flag sets a body field, so a validation error can name the flag the user typed. */
export const JOB_FIELD_HINTS: FieldHints = {
  name: '--name',
  'schedule.expression': '--cron',
  'schedule.timezone': '--timezone',
  'schedule.everySeconds': '--every',
  'schedule.runAt': '--at',
  'target.url': '--url',
  'target.method': '--method',
  'target.headers': '--header',
  'target.type': '--type',
  'target.exchange': '--exchange',
  'target.routingKey': '--routing-key',
  'target.persistent': '--transient',
  'target.subject': '--subject',
  'target.image': '--image',
  'target.command': '--command',
  'target.entrypoint': '--entrypoint',
  'target.env': '--env',
  'target.memoryMb': '--memory-mb',
  'target.cpus': '--cpus',
  'target.network': '--network',
  'target.pullPolicy': '--pull-policy',
  'target.user': '--user',
  'target.workingDir': '--workdir',
  'target.queue': '--queue',
  payload: '--payload',
  'retry.maxAttempts': '--max-attempts',
  timeoutSeconds: '--timeout',
  priority: '--priority',
  misfirePolicy: '--misfire',
  overlapPolicy: '--overlap',
  jitterSeconds: '--jitter',
};

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "a", "a and b", "a, b and c" */
export function joinList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
