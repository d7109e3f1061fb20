// The end-to-end suite's one reader of process.env (biome's noProcessEnv is off only in env
// modules): the ports that let two checkouts run their suites side by side, and whether this
// is CI (no reused server, no `.only`). The server under test reads its own env modules.

function port(name: string, fallback: string): string {
  const value = process.env[name] || fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number, not ${value}`);
  return value;
}

export const e2eEnv = Object.freeze({
  /** E2E_PORT: the product's HTTP port (default 3100) */
  E2E_PORT: port('E2E_PORT', '3100'),
  /** E2E_PG_PORT: its embedded PostgreSQL's port (default 54339) */
  E2E_PG_PORT: port('E2E_PG_PORT', '54339'),
  CI: Boolean(process.env.CI),
});
