// The tests' one reader of process.env (biome's noProcessEnv is off only in env modules):
// the few variables tests themselves look at, validated at import, and the environment a
// test hands to a child process it starts (an engine node, `npm start`, the CLI, a linter).
// What the code under test reads goes through that code's own env module (@belfry/db's
// readDbEnv, the apps' env.ts), not through here.
import { z } from 'zod';

// An unset or empty variable is "not set".
const unset = (value: unknown) => (value === '' ? undefined : value);

const schema = z.object({
  PATH: z.string().default(''),
  TMPDIR: z.preprocess(unset, z.string().default('/tmp')),
  /** database-outage.int.test.ts: a fixed port for its private PostgreSQL (default: a free one) */
  BELFRY_FAULT_PG_PORT: z.preprocess(unset, z.coerce.number().int().min(1).max(65535).optional()),
  /** database-outage.int.test.ts: print the engine node's log even when the test passes */
  BELFRY_OUTAGE_LOGS: z.preprocess(unset, z.string().optional()).transform(Boolean),
  /** container tests: the Docker Engine to use (default: the local socket) */
  BELFRY_DOCKER_HOST: z.preprocess(unset, z.string().optional()),
});

export type TestEnv = z.infer<typeof schema>;

function read(): TestEnv {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid test environment:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export const testEnv: Readonly<TestEnv> = Object.freeze(read());

/** A child process's environment: this process's, with `extra` on top (undefined removes a variable). */
export { childProcessEnv as childEnv } from '@belfry/db';
