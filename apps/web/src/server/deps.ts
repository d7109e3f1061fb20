// The domain services' dependencies for this web process, built once on first use: the
// database (DATABASE_URL, or the shared embedded server), a pg pool, Prisma, a pg-boss
// client that only enqueues (engine nodes supervise), the key that seals stored secrets,
// and the partition count fixed when the database was first migrated.
import { ChannelSenders, dashboardLinks } from '@belfry/alerts';
import { prepareLeaseTokens, type ServiceDeps, systemClock } from '@belfry/api';
import { Keyring, parseKeyList } from '@belfry/core';
import { createPool, createPrisma, createQueueClient, localSecret, PullWakeups, resolveDatabase } from '@belfry/db';
import { ImageAllowList } from '@belfry/handlers/schemas';
import { FailureStreak } from '@belfry/log';
import { webEnv } from './env';
import { log } from './log';

// On globalThis so that dev-mode module reloads reuse one set of connections.
const holder = globalThis as typeof globalThis & { belfryDeps?: Promise<ServiceDeps> };

async function readPartitions(pool: ServiceDeps['pool']): Promise<number> {
  const { rows } = await pool.query<{ value: string }>(`SELECT value FROM belfry_settings WHERE key = 'partitions'`);
  const partitions = Number(rows[0]?.value);
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new Error(
      'the database has not been migrated (belfry_settings.partitions is missing); run `npm start` or the engine once',
    );
  }
  return partitions;
}

/** Where notifications link to: BELFRY_DASHBOARD_URL, else NEXTAUTH_URL, else localhost. */
export function dashboardUrl(): string {
  const env = webEnv();
  return env.BELFRY_DASHBOARD_URL ?? env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`;
}

async function buildDeps(): Promise<ServiceDeps> {
  const env = webEnv();
  const target = await resolveDatabase(env.db, (m) => log.info(m));
  // Errors of connections the pools hold idle (a restart, a terminated backend) are logged;
  // the pools replace those connections on the next request.
  const onError = (err: Error) => log.warn({ err: err.message }, 'database connection lost');
  const pool = createPool(target.url, { max: 20, name: 'belfry-web', onError });
  const prisma = createPrisma(target.url, { max: 10, onError });
  try {
    const partitions = await readPartitions(pool);
    const queueFailures = new FailureStreak(log, 'queue client', 'warn', { quietMs: 60_000 });
    const queue = await createQueueClient(target.url, {
      supervise: false,
      max: 5,
      // pg-boss reports each failure and never a success: a streak ends after a quiet minute
      onError: (err) => queueFailures.failed(err),
    });
    const keyring = Keyring.from(
      localSecret('encryption-key', env.BELFRY_ENCRYPTION_KEY),
      parseKeyList(env.BELFRY_DECRYPTION_KEYS),
    );
    // Pull-queue lease-token keys derived now, not on the first claim while workers wait.
    prepareLeaseTokens(keyring);
    const alertSender = new ChannelSenders({
      links: dashboardLinks(dashboardUrl()),
      allowPrivateTargets: env.BELFRY_ALLOW_PRIVATE_TARGETS,
      smtpUrl: env.BELFRY_SMTP_URL,
      smtpFrom: env.BELFRY_SMTP_FROM,
    });
    const containerImages = ImageAllowList.parse(env.BELFRY_CONTAINER_IMAGES);
    // Long-polling pull-queue claims wake on NOTIFY; LISTEN needs a session: the direct URL.
    // while the database is away every reconnect fails: the first in full, then a few lines
    const listenerFailures = new FailureStreak(log, 'pull-queue wake listener', 'warn');
    const pullWakeups = new PullWakeups({
      url: target.directUrl,
      onError: (err) => listenerFailures.failed(err),
      onListening: () => listenerFailures.succeeded(),
    });
    await pullWakeups.start().catch((err: unknown) => log.warn({ err }, 'pull-queue wake listener not started'));
    return {
      prisma,
      pool,
      queue,
      clock: systemClock,
      log,
      keyring,
      partitions,
      alertSender,
      pullWakeups,
      containerImages,
    };
  } catch (err) {
    await Promise.allSettled([pool.end(), prisma.$disconnect()]);
    throw err;
  }
}

/** The process's dependencies; a failed build is retried on the next call. */
export function getDeps(): Promise<ServiceDeps> {
  holder.belfryDeps ??= buildDeps().catch((err: unknown) => {
    holder.belfryDeps = undefined;
    throw err;
  });
  return holder.belfryDeps;
}
