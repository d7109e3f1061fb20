// `jobs create`: the target the flags describe (--url, --queue, --image and each kind's own
// flags), merged over the target of a --file. The kind comes from --type, else from which
// flags are given, else from the URL's scheme; a flag of another kind is a usage error.
import type { TargetInput } from '@belfry/client';
import { UsageError } from './errors';
import { isObject, type JobCreateBody, type JobCreateFlags, joinList } from './job-flags';

type ContainerTargetInput = Extract<TargetInput, { type: 'container' }>;

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
export function buildTarget(fileTarget: unknown, flags: JobCreateFlags): JobCreateBody['target'] | undefined {
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
