// The environment of the commands `npm install` runs after installing (scripts/postinstall.mjs),
// the one reader of process.env there. Plain JavaScript: it runs under plain node, before
// anything is built. Prisma 7 wants a schema engine binary even for `generate`, which needs no
// engine; pointing it at /bin/true (unless one is set) keeps installs offline.

/** @returns {NodeJS.ProcessEnv} */
export function installEnv() {
  const env = { ...process.env };
  env.PRISMA_SCHEMA_ENGINE_BINARY ??= '/bin/true';
  return env;
}
