// The CLI's configuration from the environment, read once in main.ts and passed down; nothing
// else in the CLI reads process.env (the admin command's database settings are read by
// @belfry/db's own env module). Parsed by hand: the CLI has no schema library of its own.
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { UsageError } from './errors';

export interface CliEnv {
  /** BELFRY_URL: overrides the stored server URL */
  url: string | undefined;
  /** BELFRY_TOKEN: overrides the stored API key */
  token: string | undefined;
  /** where config.json lives: $XDG_CONFIG_HOME/belfry or ~/.config/belfry */
  configDir: string;
  /** BELFRY_ENCRYPTION_KEY: the key material the server seals secrets with (admin only) */
  encryptionKey: string | undefined;
  /** BELFRY_DECRYPTION_KEYS: older keys that still open secrets sealed before a rotation (admin only) */
  decryptionKeys: string[];
}

const nonEmpty = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/** Accepts http(s) URLs only and drops trailing slashes, so paths can be appended. */
export function normalizeServerUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${source} must be a URL such as http://localhost:3000 (got '${raw}')`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source} must be an http:// or https:// URL (got '${raw}')`);
  }
  if (url.username || url.password) throw new UsageError(`${source} must not contain credentials; use --token`);
  url.search = '';
  url.hash = '';
  // People paste the API base as often as the site; both mean the same server.
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.origin}${path}`;
}

export function readCliEnv(env: NodeJS.ProcessEnv = process.env): CliEnv {
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  // The XDG spec says relative values are invalid and must be ignored.
  const configBase = xdg && isAbsolute(xdg) ? xdg : join(nonEmpty(env.HOME) ?? homedir(), '.config');
  const url = nonEmpty(env.BELFRY_URL);
  return {
    url: url ? normalizeServerUrl(url, 'BELFRY_URL') : undefined,
    token: nonEmpty(env.BELFRY_TOKEN),
    configDir: join(configBase, 'belfry'),
    encryptionKey: nonEmpty(env.BELFRY_ENCRYPTION_KEY),
    decryptionKeys: (env.BELFRY_DECRYPTION_KEYS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
  };
}
