// The `container` target kind (docs/api.md, "Container targets"): one container per attempt on a
// Docker Engine. What a client sends is checked here for form (image reference grammar, argument
// and env sizes, limits); whether the image is ALLOWED is the operator's allow-list, checked by the
// API at create/update time (422) and again by the engine before it runs. Its runs travel in the
// container lane, which only nodes with a Docker Engine serve.
import { hasControlCharacter, textProblem } from '@belfry/core';
import { z } from 'zod';
import { defineKind } from '../kind';
import { imageReferenceProblem, MAX_IMAGE_LENGTH } from './images';

export const MAX_ARGS = 256;
export const MAX_ARG_BYTES = 4 * 1024;
export const MAX_COMMAND_BYTES = 32 * 1024;
export const MAX_ENV = 100;
export const MAX_ENV_BYTES = 32 * 1024;
export const NETWORKS = ['none', 'bridge'] as const;
export const PULL_POLICIES = ['if-missing', 'never', 'always'] as const;
export type PullPolicy = (typeof PULL_POLICIES)[number];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const USER = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})?$/;

const Image = z
  .string()
  .superRefine((value, ctx) => {
    const problem = imageReferenceProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description: `Image reference as Docker writes it (at most ${MAX_IMAGE_LENGTH} characters); must match the operator's BELFRY_CONTAINER_IMAGES`,
    example: 'registry.example.com/jobs/report:1.4',
  });

function checkArgs(args: string[], ctx: z.core.$RefinementCtx<string[]>): void {
  let bytes = 0;
  args.forEach((arg, i) => {
    bytes += Buffer.byteLength(arg);
    const text = textProblem(arg);
    if (text) ctx.addIssue({ code: 'custom', path: [i], message: text });
    else if (Buffer.byteLength(arg) > MAX_ARG_BYTES)
      ctx.addIssue({ code: 'custom', path: [i], message: `must be at most ${MAX_ARG_BYTES} bytes` });
  });
  if (bytes > MAX_COMMAND_BYTES)
    ctx.addIssue({ code: 'custom', message: `must total at most ${MAX_COMMAND_BYTES} bytes` });
}

const Args = z
  .array(z.string({ error: 'must be a string' }))
  .max(MAX_ARGS, { error: `at most ${MAX_ARGS} arguments` })
  .superRefine(checkArgs);

function checkEnv(env: Record<string, string>, ctx: z.core.$RefinementCtx<Record<string, string>>): void {
  const names = Object.keys(env);
  if (names.length > MAX_ENV) ctx.addIssue({ code: 'custom', message: `at most ${MAX_ENV} variables are allowed` });
  let bytes = 0;
  for (const name of names) {
    const value = env[name] ?? '';
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
    const at = (message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
    if (!ENV_NAME.test(name) || name.length > 256)
      at('is not a valid variable name (letters, digits, _; not first a digit)');
    else if (name.toUpperCase().startsWith('BELFRY_')) at('BELFRY_* variables are set by Belfry');
    const text = textProblem(value);
    if (text) at(`value ${text}`);
  }
  if (bytes > MAX_ENV_BYTES) ctx.addIssue({ code: 'custom', message: `must total at most ${MAX_ENV_BYTES} bytes` });
}

export const ContainerEnv = z
  .record(z.string(), z.string({ error: 'must be a string' }))
  .superRefine(checkEnv)
  .meta({
    description: `At most ${MAX_ENV} variables, ${MAX_ENV_BYTES} bytes in all; values of names with token, secret, key or password are write-only`,
    example: { REPORT_KIND: 'daily' },
  });

const WorkingDir = z
  .string()
  .max(1024, { error: 'must be at most 1024 characters' })
  .refine((v) => v.startsWith('/') && !hasControlCharacter(v) && textProblem(v) === null, {
    error: 'must be an absolute path without control characters',
  });

export const ContainerTargetInput = z
  .strictObject({
    type: z.literal('container'),
    image: Image,
    command: Args.optional().meta({ description: 'Arguments (the image CMD when left out)', example: ['report'] }),
    entrypoint: Args.optional().meta({ description: "Replaces the image's ENTRYPOINT" }),
    env: ContainerEnv.default({}),
    workingDir: WorkingDir.optional(),
    user: z
      .string()
      .regex(USER, { error: 'must be a user name or id, optionally with a group (1000 or 1000:1000)' })
      .optional(),
    memoryMb: z.int().min(6).max(65_536).default(512).meta({ description: 'Memory limit in MiB' }),
    cpus: z.number().min(0.01).max(64).default(1).meta({ description: 'CPU limit (1 = one core)' }),
    network: z.enum(NETWORKS).default('none'),
    pullPolicy: z.enum(PULL_POLICIES).default('if-missing'),
  })
  .meta({ id: 'ContainerTargetInput', description: 'A container per attempt on a Docker Engine' });

export const ContainerTarget = z
  .strictObject({
    type: z.literal('container'),
    image: z.string(),
    command: z.array(z.string()).optional(),
    entrypoint: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()),
    workingDir: z.string().optional(),
    user: z.string().optional(),
    memoryMb: z.int(),
    cpus: z.number(),
    network: z.enum(NETWORKS),
    pullPolicy: z.enum(PULL_POLICIES),
  })
  .meta({ id: 'ContainerTarget' });

export type StoredContainerTarget = z.output<typeof ContainerTargetInput>;

export const containerKind = defineKind({
  type: 'container',
  lane: 'container',
  input: ContainerTargetInput,
  view: ContainerTarget,
  toView: (stored) => {
    const view: z.output<typeof ContainerTarget> = {
      type: 'container' as const,
      image: stored.image,
      env: stored.env ?? {},
      memoryMb: stored.memoryMb,
      cpus: stored.cpus,
      network: stored.network,
      pullPolicy: stored.pullPolicy,
    };
    if (stored.command) view.command = stored.command;
    if (stored.entrypoint) view.entrypoint = stored.entrypoint;
    if (stored.workingDir) view.workingDir = stored.workingDir;
    if (stored.user) view.user = stored.user;
    return view;
  },
  // Env values named like credentials (DB_PASSWORD, API_TOKEN, ...).
  secrets: { namedMaps: ['env'] },
});
