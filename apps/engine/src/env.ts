// The engine's configuration: parsed from the environment once, at start, with clear errors.
import { availableParallelism, hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { parseKeyList } from '@belfry/core';
import { ALERT_ENV_FIELDS } from '@belfry/alerts/env-fields';
import { readDbEnv } from '@belfry/db';
import { DEFAULT_DOCKER_HOST, dockerHostProblem, ImageAllowList } from '@belfry/handlers';
import { LOG_LEVELS } from '@belfry/log';
import { z } from 'zod';

const roles = z
  .string()
  .default('scheduler,worker')
  .transform((value, ctx) => {
    const list = value
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean);
    if (list.length === 1 && list[0] === 'none') return [] as Role[];
    for (const r of list) {
      if (r !== 'scheduler' && r !== 'worker') {
        ctx.addIssue({ code: 'custom', message: `unknown role '${r}' (expected scheduler, worker or none)` });
        return z.NEVER;
      }
    }
    return [...new Set(list)] as Role[];
  });

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .default('0')
  .transform((v) => v === '1' || v === 'true');

/** Where `npm start` serves the dashboard unless PORT says otherwise (CONTRACT.md §1). */
export const DEFAULT_DASHBOARD_URL = 'http://localhost:3000';

const schema = z.object({
  BELFRY_ROLES: roles,
  BELFRY_NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'BELFRY_NODE_ID may use letters, digits and _ . : - (max 100)')
    .optional(),
  BELFRY_ALLOW_PRIVATE_TARGETS: flag,
  BELFRY_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  BELFRY_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  BELFRY_ENCRYPTION_KEY: z.string().min(16).optional(),
  BELFRY_DECRYPTION_KEYS: z.string().optional(),
  BELFRY_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(1000),
  BELFRY_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(25),
  BELFRY_LEASE_SECONDS: z.coerce.number().int().min(2).max(600).default(15),
  BELFRY_RUN_LEASE_SECONDS: z.coerce.number().int().min(2).max(3600).default(30),
  BELFRY_MISFIRE_GRACE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  BELFRY_TENANT_CONCURRENCY: z.coerce.number().int().min(1).max(100_000).default(50),
  ...ALERT_ENV_FIELDS,
  // The dashboard's public address, when this node shares the web's environment (npm start
  // passes it): the default of BELFRY_DASHBOARD_URL. PORT is not read: it is the web's port,
  // which a node run apart from the web cannot know.
  NEXTAUTH_URL: z.url().optional(),
  BELFRY_DOCKER_HOST: z
    .string()
    .default(DEFAULT_DOCKER_HOST)
    .superRefine((value, ctx) => {
      const problem = dockerHostProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  BELFRY_CONTAINER_IMAGES: z.string().optional(),
  BELFRY_CONTAINER_SLOTS: z.coerce.number().int().min(1).max(10_000).optional(),
});

export type Role = 'scheduler' | 'worker';

export interface EngineEnv {
  roles: Role[];
  nodeId: string;
  allowPrivateTargets: boolean;
  metricsPort: number;
  logLevel: string;
  encryptionKeyMaterial: string | undefined;
  /** older keys that still open secrets sealed before a rotation */
  decryptionKeyMaterials: string[];
  workerConcurrency: number;
  shutdownGraceMs: number;
  partitionLeaseMs: number;
  runLeaseMs: number;
  misfireGraceMs: number;
  tenantConcurrency: number;
  alerts: AlertsEnv;
  /** container targets: the Docker Engine, the images allowed (none: the node serves no container lane), slots */
  dockerHost: string;
  containerImages: ImageAllowList;
  containerSlots: number;
  db: ReturnType<typeof readDbEnv>;
}

/** Alert delivery settings, shared in shape with the web process (docs/alerts.md). */
export interface AlertsEnv {
  smtpUrl: string | undefined;
  smtpFrom: string | undefined;
  /** the dashboard's address, for links in notifications */
  dashboardUrl: string;
  /** a channel's notifications wait until it has been quiet this long, then go out as one digest */
  digestSeconds: number;
  /** first retry delay of a failed notification (then exponential, full jitter) */
  retrySeconds: number;
  lateCheckMs: number;
}

export function readEngineEnv(env: NodeJS.ProcessEnv = process.env): EngineEnv {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid engine configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    roles: e.BELFRY_ROLES,
    nodeId: e.BELFRY_NODE_ID ?? `${hostname().slice(0, 40)}-${process.pid}-${randomBytes(3).toString('hex')}`,
    allowPrivateTargets: e.BELFRY_ALLOW_PRIVATE_TARGETS,
    metricsPort: e.BELFRY_METRICS_PORT,
    logLevel: e.BELFRY_LOG_LEVEL,
    encryptionKeyMaterial: e.BELFRY_ENCRYPTION_KEY,
    decryptionKeyMaterials: parseKeyList(e.BELFRY_DECRYPTION_KEYS),
    workerConcurrency: e.BELFRY_WORKER_CONCURRENCY,
    shutdownGraceMs: e.BELFRY_SHUTDOWN_GRACE_SECONDS * 1000,
    partitionLeaseMs: e.BELFRY_LEASE_SECONDS * 1000,
    runLeaseMs: e.BELFRY_RUN_LEASE_SECONDS * 1000,
    misfireGraceMs: e.BELFRY_MISFIRE_GRACE_SECONDS * 1000,
    tenantConcurrency: e.BELFRY_TENANT_CONCURRENCY,
    alerts: {
      smtpUrl: e.BELFRY_SMTP_URL,
      smtpFrom: e.BELFRY_SMTP_FROM,
      dashboardUrl: e.BELFRY_DASHBOARD_URL ?? e.NEXTAUTH_URL ?? DEFAULT_DASHBOARD_URL,
      digestSeconds: e.BELFRY_ALERT_DIGEST_SECONDS,
      retrySeconds: e.BELFRY_ALERT_RETRY_SECONDS,
      lateCheckMs: e.BELFRY_LATE_CHECK_SECONDS * 1000,
    },
    dockerHost: e.BELFRY_DOCKER_HOST,
    containerImages: ImageAllowList.parse(e.BELFRY_CONTAINER_IMAGES),
    containerSlots: e.BELFRY_CONTAINER_SLOTS ?? availableParallelism(),
    db: readDbEnv(env),
  };
}
