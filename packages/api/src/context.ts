// What every domain service is given: explicit dependencies, no globals.
import type { ChannelSender } from '@belfry/alerts';
import type { Keyring } from '@belfry/core';
import type { PrismaClient, PullWakeups, QueueClient } from '@belfry/db';
import type { ImageAllowList } from '@belfry/handlers/schemas';
import type { LineLogger } from '@belfry/log';
import type pg from 'pg';

/** What services log through: pino's logger, or any { info, warn, error } (console, a test's recorder). */
export type Logger = LineLogger;

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface ServiceDeps {
  prisma: PrismaClient;
  pool: pg.Pool;
  clock: Clock;
  log: Logger;
  /** seals and opens secrets stored in the database (BELFRY_ENCRYPTION_KEY + BELFRY_DECRYPTION_KEYS) */
  keyring: Keyring;
  partitions: number;
  /** pg-boss, for enqueueing manual and replayed runs in the same transaction as their row */
  queue: QueueClient;
  /** sends alert channels' test notifications; without one, "send test" answers not delivered */
  alertSender?: ChannelSender;
  /** images container targets may use (BELFRY_CONTAINER_IMAGES); absent or empty: container targets are refused */
  containerImages?: ImageAllowList;
  /** wakes long-polling pull-queue claims (LISTEN); without it they poll every second */
  pullWakeups?: PullWakeups;
}

/** Who is acting, for authorisation and the audit log. */
export type Actor =
  | { type: 'user'; id: string; tenantId: string; role: 'owner' | 'admin' | 'member' | 'viewer' }
  | { type: 'api_key'; id: string; tenantId: string; scopes: string[] }
  | { type: 'system'; id: string | null; tenantId: string };
