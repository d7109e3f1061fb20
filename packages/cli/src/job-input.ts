// `jobs create`: turns flags (and an optional --file holding a whole POST /jobs body) into
// the request body. Flags win over the file, field by field, so one file can serve as a
// template (`--file base.json --name other`). Values are checked here only as far as needed
// to build the body; the server's validation is the authority and its errors are shown as is.
import type { JobCreate, MisfirePolicy, OverlapPolicy, Priority, TargetInput } from '@belfry/client';
import { CliError, UsageError, type FieldHints } from './errors';

/**
 * The body `jobs create` sends: a JobCreate as far as flags and file go. A file may leave
 * fields out or add unknown ones; the server's validation is what reports them.
 */
type HttpTargetInput = Extract<TargetInput, { type?: 'http' }>;

export type JobCreateBody = Partial<Omit<JobCreate, 'target'>> & {
  target?: Partial<HttpTargetInput> | Partial<TargetInput>;
  [field: string]: unknown;
};

type ContainerTargetInput = Extract<TargetInput, { type: 'container' }>;

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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function buildJobBody(file: unknown, flags: JobCreateFlags): JobCreateBody {
  if (file !== undefined && !isObject(file)) {
    throw new UsageError('--file must hold a JSON object: the body of POST /api/v1/jobs');
  }
  const body: JobCreateBody = { ...(file ?? {}) };
  const scheduleFlags = [flags.cron !== undefined, flags.every !== undefined, flags.at !== undefined].filter(
    Boolean,
  ).length;
  if (scheduleFlags > 1) throw new UsageError('give only one of --cron, --every and --at');

  if (flags.name !== undefined) body.name = flags.name;

  if (flags.cron !== undefined) {
    body.schedule = {
      type: 'cron',
      expression: flags.cron,
      ...(flags.timezone !== undefined ? { timezone: flags.timezone } : {}),
    };
  } else if (flags.timezone !== undefined) {
    const current = body.schedule;
    if (!isObject(current) || current.type !== 'cron')
      throw new UsageError('--timezone applies only to a cron schedule (--cron)');
    body.schedule = { ...current, timezone: flags.timezone } as JobCreateBody['schedule'];
  }
  if (flags.every !== undefined) body.schedule = { type: 'interval', everySeconds: flags.every };
  if (flags.at !== undefined) body.schedule = { type: 'once', runAt: flags.at };

  const target = buildTarget(body.target, flags);
  if (target !== undefined) body.target = target;
  if (flags.payload !== undefined) body.payload = flags.payload;
  if (flags.maxAttempts !== undefined) {
    body.retry = { ...(isObject(body.retry) ? body.retry : {}), maxAttempts: flags.maxAttempts };
  }
  if (flags.timeout !== undefined) body.timeoutSeconds = flags.timeout;
  if (flags.priority !== undefined) body.priority = flags.priority;
  if (flags.misfire !== undefined) body.misfirePolicy = flags.misfire;
  if (flags.overlap !== undefined) body.overlapPolicy = flags.overlap;
  if (flags.jitter !== undefined) body.jitterSeconds = flags.jitter;

  if (file === undefined) {
    const missing = [
      body.name === undefined ? '--name' : null,
      body.schedule === undefined ? 'a schedule (--cron, --every or --at)' : null,
      body.target === undefined ? '--url, --queue or --image' : null,
    ].filter((m): m is string => m !== null);
    if (missing.length) throw new UsageError(`jobs create needs ${joinList(missing)} (or --file job.json)`);
  }
  return body;
}

/** The kind a URL's scheme implies (a pull target has no URL: --queue tells it): amqp(s):// → amqp, nats:// or tls:// → nats, else http. */
export function kindOfUrl(url: string): 'http' | 'amqp' | 'nats' {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'amqp' || scheme === 'amqps') return 'amqp';
  if (scheme === 'nats' || scheme === 'tls') return 'nats';
  return 'http';
}

const TARGET_FLAGS: Array<[keyof JobCreateFlags, string]> = [
  ['type', '--type'],
  ['url', '--url'],
  ['method', '--method'],
  ['header', '--header'],
  ['exchange', '--exchange'],
  ['routingKey', '--routing-key'],
  ['transient', '--transient'],
  ['subject', '--subject'],
  ['image', '--image'],
  ['command', '--command'],
  ['entrypoint', '--entrypoint'],
  ['env', '--env'],
  ['memoryMb', '--memory-mb'],
  ['cpus', '--cpus'],
  ['network', '--network'],
  ['pullPolicy', '--pull-policy'],
  ['user', '--user'],
  ['workdir', '--workdir'],
  ['queue', '--queue'],
];
/** Flags that only one kind takes. */
const KIND_FLAGS: Record<string, Array<keyof JobCreateFlags>> = {
  http: ['method'],
  amqp: ['exchange', 'routingKey', 'transient'],
  nats: ['subject'],
  pull: ['queue'],
  container: ['image', 'command', 'entrypoint', 'env', 'memoryMb', 'cpus', 'network', 'pullPolicy', 'user', 'workdir'],
};
/** Flags of the kinds that call an address, which pull and container targets have none of. */
const ADDRESS_FLAGS: Array<keyof JobCreateFlags> = ['url', 'header'];

/** The target the flags describe, merged over the file's; undefined when no target flag is given. */
function buildTarget(fileTarget: unknown, flags: JobCreateFlags): JobCreateBody['target'] | undefined {
  if (!TARGET_FLAGS.some(([flag]) => flags[flag] !== undefined)) return undefined;
  const current: Record<string, unknown> = isObject(fileTarget) ? fileTarget : {};
  const type =
    flags.type ??
    (flags.image !== undefined ? 'container' : undefined) ??
    (flags.queue !== undefined ? 'pull' : undefined) ??
    (typeof current.type === 'string' ? current.type : undefined) ??
    kindOfUrl(flags.url ?? String(current.url ?? ''));
  const flagName = (name: keyof JobCreateFlags) => TARGET_FLAGS.find(([f]) => f === name)?.[1];
  for (const [kind, names] of Object.entries(KIND_FLAGS)) {
    if (kind === type) continue;
    for (const name of names) {
      if (flags[name] !== undefined) {
        throw new UsageError(`${flagName(name)} applies only to ${kind} targets (this target is ${type})`);
      }
    }
  }
  if (type === 'pull') {
    const given = TARGET_FLAGS.filter(([name]) => ADDRESS_FLAGS.includes(name) && flags[name] !== undefined);
    if (given.length > 0) {
      throw new UsageError(
        `--queue (a pull target) cannot be combined with ${joinList(given.map(([, flag]) => flag))}`,
      );
    }
    // A file's target of another kind has nothing a pull target keeps.
    return {
      type: 'pull',
      queue: flags.queue ?? (current.type === 'pull' ? current.queue : undefined),
    } as JobCreateBody['target'];
  }
  if (type === 'container') {
    const given = ADDRESS_FLAGS.find((name) => flags[name] !== undefined);
    if (given)
      throw new UsageError(`${flagName(given)} does not apply to container targets (give --image and its flags)`);
  }
  // Switching kinds starts a fresh target: the fields of the file's other kind would not fit.
  const base = current.type === undefined || current.type === type ? current : {};
  const currentHeaders = isObject(base.headers) ? base.headers : {};
  const currentEnv = isObject(base.env) ? base.env : {};
  const target: Record<string, unknown> = { ...base, type };
  if (flags.url !== undefined) target.url = flags.url;
  // any method the user typed; the server names the ones it accepts
  if (flags.method !== undefined) target.method = flags.method.toUpperCase();
  if (flags.header !== undefined) target.headers = { ...currentHeaders, ...flags.header };
  if (flags.exchange !== undefined) target.exchange = flags.exchange;
  if (flags.routingKey !== undefined) target.routingKey = flags.routingKey;
  if (flags.transient !== undefined) target.persistent = !flags.transient;
  if (flags.subject !== undefined) target.subject = flags.subject;
  Object.assign(target, containerFields(flags));
  if (flags.env !== undefined) target.env = { ...currentEnv, ...flags.env };
  return target as JobCreateBody['target'];
}

/** The container target fields the flags set (env apart). */
function containerFields(flags: JobCreateFlags): Partial<ContainerTargetInput> {
  const fields: Partial<ContainerTargetInput> & Record<string, unknown> = {};
  if (flags.image !== undefined) fields.image = flags.image;
  if (flags.command !== undefined) fields.command = flags.command;
  if (flags.entrypoint !== undefined) fields.entrypoint = flags.entrypoint;
  if (flags.memoryMb !== undefined) fields.memoryMb = flags.memoryMb;
  if (flags.cpus !== undefined) fields.cpus = flags.cpus;
  // any value the user typed; the server names the ones it accepts
  if (flags.network !== undefined) fields.network = flags.network as ContainerTargetInput['network'];
  if (flags.pullPolicy !== undefined) fields.pullPolicy = flags.pullPolicy as ContainerTargetInput['pullPolicy'];
  if (flags.user !== undefined) fields.user = flags.user;
  if (flags.workdir !== undefined) fields.workingDir = flags.workdir;
  return fields;
}

/** `--command '["sh","-c","echo hi"]'` (a JSON array of strings) or `--command "report --daily"` (split on spaces). */
export function parseArgs(text: string, flag: string): string[] {
  if (text.trimStart().startsWith('[')) {
    const value = parseJson(text, flag);
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      throw new CliError(`${flag} must be a JSON array of strings, or words separated by spaces`);
    }
    return value as string[];
  }
  return text.split(/\s+/).filter(Boolean);
}

/** `--cpus 0.5`: a positive number (the server checks the range). */
export function parseCpus(text: string): number {
  if (!/^\s*\d+(\.\d+)?\s*$/.test(text) || Number(text) <= 0) throw new Error('must be a positive number, e.g. 0.5');
  return Number(text);
}

/** `--env NAME=value`, repeatable; later values replace earlier ones of the same name. */
export function parseEnv(text: string, previous: Record<string, string> | undefined): Record<string, string> {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`'${text}' is not a variable: use NAME=value, e.g. --env REPORT_KIND=daily`);
  return { ...previous, [text.slice(0, eq)]: text.slice(eq + 1) };
}

function joinList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** `--header "x-team: billing"`, repeatable; later values replace earlier ones of the same name. */
export function parseHeader(text: string, previous: Record<string, string> | undefined): Record<string, string> {
  const colon = text.indexOf(':');
  const name = colon > 0 ? text.slice(0, colon).trim() : '';
  if (!name) throw new Error(`'${text}' is not a header: use name:value, e.g. --header "x-team: billing"`);
  return { ...previous, [name]: text.slice(colon + 1).trim() };
}

/** JSON from a flag or a file, with the parser's complaint on failure (a flag's becomes a usage error). */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}
