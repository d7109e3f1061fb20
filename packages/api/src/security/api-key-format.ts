// API key format: `bfy_` + 43 base64url chars (256 random bits). Only the SHA-256 is stored;
// the first 12 characters are kept as a visible prefix so users can tell keys apart.
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'bfy_';
const KEY_PATTERN = /^bfy_[A-Za-z0-9_-]{43}$/;

/** `queues:consume`: claim, heartbeat and complete pull-queue runs — and nothing else (a worker's key). */
export const API_KEY_SCOPES = [
  'jobs:read',
  'jobs:write',
  'runs:read',
  'runs:write',
  'queues:consume',
  'admin',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export function generateApiKey(): { key: string; prefix: string; hash: Buffer } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, 12), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function isWellFormedApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}
