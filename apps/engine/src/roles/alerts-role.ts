// Alerts: every node (whatever its roles) drains the notification outbox and watches for late
// occurrences; the web process does too, so alerts still go out with every engine stopped.
import {
  AlertDispatcher,
  ChannelSenders,
  DEFAULT_DISPATCHER_CONFIG,
  dashboardLinks,
  LateWatchdog,
} from '@belfry/alerts';
import { Keyring } from '@belfry/core';
import { countNotificationOutcomes, localSecret } from '@belfry/db';
import type { EngineEnv } from '../env';
import type { RoleContext } from './role-context';

function alertDispatcherConfig(env: EngineEnv) {
  return {
    claim: { ...DEFAULT_DISPATCHER_CONFIG.claim, quietSeconds: env.alerts.digestSeconds },
    retry: { ...DEFAULT_DISPATCHER_CONFIG.retry, initialDelaySeconds: env.alerts.retrySeconds },
  };
}

/** Starts the alert dispatcher and the late watchdog; answers how to stop them. */
export function startAlerts({ env, log, pool, metrics }: RoleContext): () => Promise<void> {
  const alertSenders = new ChannelSenders({
    links: dashboardLinks(env.alerts.dashboardUrl),
    allowPrivateTargets: env.allowPrivateTargets,
    smtpUrl: env.alerts.smtpUrl,
    smtpFrom: env.alerts.smtpFrom,
  });
  const dispatcher = new AlertDispatcher({
    pool,
    keyring: Keyring.from(localSecret('encryption-key', env.encryptionKeyMaterial), env.decryptionKeyMaterials),
    sender: alertSenders,
    log,
    config: alertDispatcherConfig(env),
  });
  const watchdog = new LateWatchdog(pool, { intervalMs: env.alerts.lateCheckMs }, log);
  metrics.setNotificationSource(() => countNotificationOutcomes(pool));
  metrics.setIncidentSource(async () => {
    const { rows } = await pool.query<{ kind: string; n: number }>(
      `SELECT k AS kind, (SELECT count(*)::int FROM incidents WHERE kind = k AND resolved_at IS NULL) AS n
       FROM unnest(ARRAY['dead', 'failing', 'late']) AS k`,
    );
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  });
  dispatcher.start();
  watchdog.start();
  return async () => {
    await watchdog.stop();
    await dispatcher.stop();
    await alertSenders.close();
  };
}
