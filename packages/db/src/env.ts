// Database configuration read from the environment, validated once.
import { z } from 'zod';
import { StartupError } from './startup-error';

const schema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  // A connection straight to PostgreSQL, for what a transaction pooler (PgBouncer) in
  // DATABASE_URL cannot carry: LISTEN, session advisory locks, migrations. Default DATABASE_URL.
  BELFRY_DIRECT_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'BELFRY_DIRECT_DATABASE_URL must be a postgres:// or postgresql:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  BELFRY_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  BELFRY_PARTITIONS: z.coerce.number().int().min(1).max(65536).default(1024),
  BELFRY_HOME: z.string().optional(),
});

export type DbEnv = z.infer<typeof schema>;

export function readDbEnv(env: NodeJS.ProcessEnv = process.env): DbEnv {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new StartupError(`Invalid database configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/**
 * The environment of a child process (initdb and postgres here; the env modules of the tests,
 * scripts and bench re-export it as `childEnv`): this process's, with `extra` on top. A
 * variable given as undefined is removed.
 */
export function childProcessEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete env[name];
  return env;
}
