// The web app's configuration: parsed from the environment once, validated with zod, with a
// clear message on failure. Nothing else in the web app reads process.env.
import { ALERT_ENV_FIELDS } from '@belfry/alerts/env-fields';
import { readDbEnv } from '@belfry/db';
import { LOG_LEVELS } from '@belfry/log';
import { z } from 'zod';

const schema = z.object({
  BELFRY_ENCRYPTION_KEY: z.string().min(16, 'BELFRY_ENCRYPTION_KEY must be at least 16 characters').optional(),
  /** comma-separated image patterns container targets may use (`*` = any characters); unset: none */
  BELFRY_CONTAINER_IMAGES: z.string().optional(),
  /** older keys that still open secrets sealed before a rotation (comma-separated) */
  BELFRY_DECRYPTION_KEYS: z.string().optional(),
  BELFRY_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  NEXTAUTH_SECRET: z.string().min(16).optional(),
  NEXTAUTH_URL: z.url().optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  BELFRY_ALLOW_PRIVATE_TARGETS: z
    .enum(['0', '1', 'true', 'false', ''])
    .default('0')
    .transform((v) => v === '1' || v === 'true'),
  ...ALERT_ENV_FIELDS,
  /** 0 keeps the watchdog and dispatcher out of this process (the engine nodes still run them) */
  BELFRY_WEB_ALERTS: z
    .enum(['0', '1'])
    .default('1')
    .transform((v) => v === '1'),
});

export interface WebEnv extends z.infer<typeof schema> {
  db: ReturnType<typeof readDbEnv>;
}

let cached: WebEnv | undefined;

export function webEnv(): WebEnv {
  if (cached) return cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid web configuration:\n${lines.join('\n')}`);
  }
  cached = { ...parsed.data, db: readDbEnv(process.env) };
  return cached;
}
