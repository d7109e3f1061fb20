// The web process's share of alerting: the late watchdog and the notification dispatcher run
// here too, not only in engine nodes, so a frozen or dead engine fleet is still reported
// (docs/alerts.md). Both are safe to run anywhere at once (one open incident per job and
// kind; notifications are claimed with leases). Started once per process by instrumentation.ts.
import {
  AlertDispatcher,
  ChannelSenders,
  DEFAULT_DISPATCHER_CONFIG,
  dashboardLinks,
  LateWatchdog,
} from '@belfry/alerts';
import { dashboardUrl, getDeps } from './deps';
import { webEnv } from './env';
import { log } from './log';

const holder = globalThis as typeof globalThis & { belfryAlerts?: Promise<void> };

export function startWebAlerts(): Promise<void> {
  holder.belfryAlerts ??= (async () => {
    const env = webEnv();
    if (!env.BELFRY_WEB_ALERTS) return;
    const deps = await getDeps();
    const sender = new ChannelSenders({
      links: dashboardLinks(dashboardUrl()),
      allowPrivateTargets: env.BELFRY_ALLOW_PRIVATE_TARGETS,
      smtpUrl: env.BELFRY_SMTP_URL,
      smtpFrom: env.BELFRY_SMTP_FROM,
    });
    const dispatcher = new AlertDispatcher({
      pool: deps.pool,
      keyring: deps.keyring,
      sender,
      log,
      config: {
        claim: { ...DEFAULT_DISPATCHER_CONFIG.claim, quietSeconds: env.BELFRY_ALERT_DIGEST_SECONDS },
        retry: { ...DEFAULT_DISPATCHER_CONFIG.retry, initialDelaySeconds: env.BELFRY_ALERT_RETRY_SECONDS },
      },
    });
    const watchdog = new LateWatchdog(deps.pool, { intervalMs: env.BELFRY_LATE_CHECK_SECONDS * 1000 }, log);
    dispatcher.start();
    watchdog.start();
    log.info({}, 'alert watchdog and dispatcher started in the web process');
  })().catch((err: unknown) => {
    log.error({ err }, 'alert watchdog could not start; trying again in 10 s');
    setTimeout(() => {
      holder.belfryAlerts = undefined;
      void startWebAlerts();
    }, 10_000).unref();
  });
  return holder.belfryAlerts;
}
