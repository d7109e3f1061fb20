// Drains the notification outbox (alert_notifications). Claims due notifications a channel at a
// time — everything a channel has waiting goes out as one message, a digest when there are
// several — sends, and records the outcome on each notification: sent, a retry at a time chosen
// by the runs' own retry decision (decideRetry: exponential backoff with full jitter, Retry-After
// honoured), or failed once attempts are used up. Runs in every engine node and in the web
// process; claims are leases, so any number may run and none loses a notification.
import {
  ALERT_CHANNEL_PURPOSE,
  decideRetry,
  type Keyring,
  PeriodicTask,
  type RetryPolicy,
  SIGNING_SECRET_PURPOSE,
} from '@belfry/core';
import {
  type ClaimedNotification,
  type ClaimOptions,
  claimAlertNotifications,
  finishAlertNotifications,
  type NotificationResult,
  withTransaction,
} from '@belfry/db';
import { FailureStreak } from '@belfry/log';
import type pg from 'pg';
import type { AlertItem, AlertMessage, ChannelConfig, ChannelSender, SendResult } from './types';

export interface DispatcherLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface DispatcherConfig {
  intervalMs: number;
  claim: ClaimOptions;
  retry: RetryPolicy;
  timeoutMs: number;
}

export const DEFAULT_DISPATCHER_CONFIG: DispatcherConfig = {
  intervalMs: 1_000,
  claim: { quietSeconds: 2, maxWaitSeconds: 30, lockSeconds: 120, maxChannels: 50, maxNotifications: 2_000 },
  retry: { maxAttempts: 10, initialDelaySeconds: 10, maxDelaySeconds: 900 },
  timeoutMs: 15_000,
};

export class AlertDispatcher {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly deps: {
      pool: pg.Pool;
      keyring: Keyring;
      sender: ChannelSender;
      log: DispatcherLog;
      config?: Partial<DispatcherConfig>;
      random?: () => number;
    },
  ) {
    // a database away fails every round: its first failure in full, then a few lines (FailureStreak)
    const failures = new FailureStreak(deps.log, 'alert dispatch');
    this.loop = new PeriodicTask(
      () => this.dispatchOnce(),
      this.config.intervalMs,
      (err) => failures.failed(err),
      () => failures.succeeded(),
    );
  }

  private get config(): DispatcherConfig {
    return { ...DEFAULT_DISPATCHER_CONFIG, ...this.deps.config };
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass: claims what is due, sends it, records it. Answers how many notifications were handled. */
  async dispatchOnce(): Promise<number> {
    const config = this.config;
    // The claim commits at once: the lease (locked_until) protects the rows while we send.
    const claimed = await claimAlertNotifications(this.deps.pool, config.claim);
    if (!claimed.length) return 0;
    const byChannel = new Map<string, ClaimedNotification[]>();
    for (const n of claimed) byChannel.set(n.channel_id, [...(byChannel.get(n.channel_id) ?? []), n]);
    const secrets = new Map<string, Promise<string[]>>();
    const results: NotificationResult[] = [];
    await Promise.all(
      [...byChannel.values()].map(async (group) => {
        const first = group[0] as ClaimedNotification;
        let tenantSecrets = secrets.get(first.tenant_id);
        if (!tenantSecrets) {
          tenantSecrets = this.signingSecrets(first.tenant_id);
          secrets.set(first.tenant_id, tenantSecrets);
        }
        results.push(...(await this.sendGroup(group, await tenantSecrets)));
      }),
    );
    await withTransaction(this.deps.pool, (client) => finishAlertNotifications(client, results), { maxTries: 3 });
    return claimed.length;
  }

  private async sendGroup(group: ClaimedNotification[], signingSecrets: string[]): Promise<NotificationResult[]> {
    const first = group[0] as ClaimedNotification;
    const config = this.config;
    let result: SendResult;
    let channelType = first.channel_type ?? 'deleted';
    if (!first.channel_type || !first.channel_sealed) {
      result = { ok: false, failure: 'invalid', error: 'the channel was deleted' };
    } else {
      let channel: ChannelConfig | undefined;
      try {
        channel = JSON.parse(
          this.deps.keyring.open(first.channel_sealed, { tenantId: first.tenant_id, purpose: ALERT_CHANNEL_PURPOSE }),
        ) as ChannelConfig;
      } catch {
        result = { ok: false, failure: 'invalid', error: 'the channel configuration cannot be read' };
      }
      if (channel) {
        channelType = channel.type;
        const message: AlertMessage = {
          id: first.id,
          tenantId: first.tenant_id,
          test: false,
          items: group.map(toItem),
        };
        result = await this.deps.sender
          .send(channel, message, { signingSecrets, attempt: first.attempts, timeoutMs: config.timeoutMs })
          .catch(
            (err: unknown): SendResult => ({
              ok: false,
              failure: 'connection',
              error: String((err as Error)?.message ?? err),
            }),
          );
      } else result ??= { ok: false, failure: 'invalid', error: 'the channel configuration cannot be read' };
    }
    const log = { channelId: first.channel_id, channelType, tenantId: first.tenant_id, notifications: group.length };
    if (result.ok) {
      this.deps.log.info(log, 'alert notification sent');
      return group.map((n) => ({ id: n.id, status: 'sent', messageId: first.id }));
    }
    // A group is claimed together, so its members share their attempt count (the first's).
    const decision = decideRetry(
      config.retry,
      first.attempts,
      { failure: result.failure, httpStatus: result.httpStatus ?? null, retryAfterMs: result.retryAfterMs ?? null },
      new Date(),
      this.deps.random ?? Math.random,
    );
    if ('retryAt' in decision) {
      this.deps.log.warn(
        { ...log, error: result.error, retryAt: decision.retryAt },
        'alert notification failed; will retry',
      );
      return group.map((n) => ({ id: n.id, status: 'pending', error: result.error, nextAttemptAt: decision.retryAt }));
    }
    this.deps.log.warn({ ...log, error: result.error }, 'alert notification failed for good');
    return group.map((n) => ({ id: n.id, status: 'failed', error: result.error }));
  }

  private async signingSecrets(tenantId: string): Promise<string[]> {
    const { rows } = await this.deps.pool.query<{
      current_secret: Buffer;
      previous_secret: Buffer | null;
      live: boolean;
    }>(
      `SELECT current_secret, previous_secret, coalesce(previous_expires_at > now(), false) AS live
       FROM signing_secrets WHERE tenant_id = $1`,
      [tenantId],
    );
    const row = rows[0];
    if (!row) return [];
    const open = (sealed: Buffer) => this.deps.keyring.open(sealed, { tenantId, purpose: SIGNING_SECRET_PURPOSE });
    return [open(row.current_secret), ...(row.live && row.previous_secret ? [open(row.previous_secret)] : [])];
  }
}

function toItem(n: ClaimedNotification): AlertItem {
  return {
    notificationId: n.id,
    event: n.event,
    incident: {
      id: n.incident_id,
      kind: n.kind,
      openedAt: n.opened_at,
      resolvedAt: n.resolved_at,
      runId: n.event === 'resolved' ? (n.resolved_run_id ?? n.run_id) : n.run_id,
      scheduledTime: n.scheduled_time,
    },
    job: { id: n.job_id, name: n.job_name ?? n.job_id },
  };
}
