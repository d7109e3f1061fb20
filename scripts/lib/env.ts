// The scripts' one reader of process.env (biome's noProcessEnv is off only in env modules):
// what `npm start`, `npm run dev` and the web server are configured with, validated, and the
// environment they hand to the processes they start (which read it through their own env
// modules: apps/web/src/server/env.ts, apps/engine/src/env.ts).
import { type DbEnv, readDbEnv, StartupError } from '@belfry/db';
import { z } from 'zod';

const schema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  BELFRY_ROLES: z.string().default('scheduler,worker'),
  /** unset: a key made once and kept under BELFRY_HOME (localSecret) */
  BELFRY_ENCRYPTION_KEY: z.string().optional(),
  BELFRY_DECRYPTION_KEYS: z.string().optional(),
  NEXTAUTH_SECRET: z.string().optional(),
  NEXTAUTH_URL: z.string().optional(),
});

export type ScriptsEnv = z.infer<typeof schema> & { db: DbEnv };

/** `npm start` and `npm run dev`'s configuration; a StartupError saying what is wrong otherwise. */
export function readScriptsEnv(): ScriptsEnv {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new StartupError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return { ...parsed.data, db: readDbEnv() };
}

/** scripts/web-server.ts's port and whether it trusts a proxy's X-Forwarded-For (BELFRY_TRUST_PROXY=1). */
export function readWebServerEnv(): { port: number; trustProxy: boolean } {
  const raw = process.env.PORT;
  const port = Number(raw ?? 3000);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new StartupError(`PORT must be a port number, not ${JSON.stringify(raw)}`);
  }
  return { port, trustProxy: process.env.BELFRY_TRUST_PROXY === '1' };
}

/** A child process's environment: this process's, with `extra` on top (undefined removes a variable). */
export { childProcessEnv as childEnv } from '@belfry/db';
