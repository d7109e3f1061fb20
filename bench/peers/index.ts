// The peers the bench runs, loaded on demand (each pulls in its own library).
import type { PeerDriver, PeerName, Settings } from './types';

export const PEER_NAMES: readonly PeerName[] = ['pgboss', 'graphile', 'bullmq'];

export async function loadPeer(name: PeerName): Promise<PeerDriver<Settings>> {
  switch (name) {
    case 'pgboss':
      return (await import('./pgboss')).pgBossPeer;
    case 'graphile':
      return (await import('./graphile')).graphilePeer;
    case 'bullmq':
      return (await import('./bullmq')).bullMqPeer;
  }
}

export function isPeerName(name: string): name is PeerName {
  return (PEER_NAMES as readonly string[]).includes(name);
}

/**
 * A peer's defaults with overrides from `--peer-settings='{"bullmq":{"concurrency":100}}'`;
 * an unknown setting or a value of another type is an error, not silently ignored.
 */
export function resolveSettings(driver: PeerDriver<Settings>, overrides: unknown): Settings {
  const mine = (overrides as Record<string, unknown> | undefined)?.[driver.name];
  const settings: Settings = { ...driver.defaults };
  for (const [key, value] of Object.entries((mine ?? {}) as Record<string, unknown>)) {
    const current = driver.defaults[key];
    if (current === undefined)
      throw new Error(`--peer-settings: ${driver.name} has no setting "${key}" (${Object.keys(driver.defaults)})`);
    if (typeof value !== typeof current)
      throw new Error(
        `--peer-settings: ${driver.name}.${key} must be a ${typeof current}, got ${JSON.stringify(value)}`,
      );
    settings[key] = value as number | boolean;
  }
  return settings;
}
