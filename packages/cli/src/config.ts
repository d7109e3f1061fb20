// Stored credentials: {url, token} in <config dir>/config.json, readable by the user alone
// (dir 0700, file 0600, written to a temporary file and renamed so a crash never leaves half
// a file). BELFRY_URL and BELFRY_TOKEN win over the file, so CI can skip `belfry login`.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliEnv } from './env';
import { CliError } from './errors';

export interface StoredConfig {
  url: string;
  token: string;
}

export interface Credentials {
  url: string;
  token: string;
  /** where the token came from, for error messages */
  tokenSource: 'env' | 'config';
}

export function configPath(configDir: string): string {
  return join(configDir, 'config.json');
}

export function readConfig(configDir: string): Partial<StoredConfig> | null {
  const file = configPath(configDir);
  if (!existsSync(file)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}; run \`belfry login\` again`);
  }
  if (!parsed || typeof parsed !== 'object')
    throw new CliError(`${file} is not a JSON object; run \`belfry login\` again`);
  const { url, token } = parsed as Record<string, unknown>;
  return {
    ...(typeof url === 'string' ? { url } : {}),
    ...(typeof token === 'string' ? { token } : {}),
  };
}

export function writeConfig(configDir: string, config: StoredConfig): string {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask and ignored when the directory exists; it is ours, so tighten it.
  chmodSync(configDir, 0o700);
  const file = configPath(configDir);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
  return file;
}

/** Removes the stored credentials; false when there were none. */
export function removeConfig(configDir: string): boolean {
  const file = configPath(configDir);
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}

export const LOGIN_HINT = 'run `belfry login --url <url> --token <api key>` (or set BELFRY_URL and BELFRY_TOKEN)';

export function resolveCredentials(env: CliEnv): Credentials {
  const stored = env.url && env.token ? null : readConfig(env.configDir);
  const url = env.url ?? stored?.url;
  const token = env.token ?? stored?.token;
  if (!url || !token) throw new CliError(`not logged in: ${LOGIN_HINT}`);
  return { url, token, tokenSource: env.token ? 'env' : 'config' };
}
