// What a channel is sent: one message carrying one or more notifications (a digest when
// incidents open or resolve together), each naming its incident, job and run.
import type { FailureKind, IncidentKind, NotificationEvent } from '@belfry/core';

/** A channel's whole configuration, as sealed in alert_channels.sealed (secrets included). */
export type ChannelConfig =
  | { type: 'email'; to: string[] }
  | { type: 'slack'; url: string }
  | { type: 'webhook'; url: string }
  | { type: 'pagerduty'; routingKey: string; url?: string | undefined };

export interface AlertItem {
  notificationId: string;
  event: NotificationEvent;
  incident: {
    id: string;
    kind: IncidentKind;
    openedAt: Date;
    resolvedAt: Date | null;
    /** the run that opened it (dead, failing) or that is waiting (late), if any */
    runId: string | null;
    /** late: the occurrence that did not start */
    scheduledTime: Date | null;
  };
  job: { id: string; name: string };
}

export interface AlertMessage {
  /** the message's id: the first notification's, so retries of a message keep it */
  id: string;
  tenantId: string;
  /** a "send test" message carries no incidents */
  test: boolean;
  items: AlertItem[];
}

export type SendResult =
  | { ok: true }
  | { ok: false; error: string; failure: FailureKind; httpStatus?: number | null; retryAfterMs?: number | null };

export interface SendContext {
  /** the tenant's webhook signing secrets, current first */
  signingSecrets: string[];
  attempt: number;
  timeoutMs: number;
}

export interface ChannelSender {
  send(config: ChannelConfig, message: AlertMessage, ctx: SendContext): Promise<SendResult>;
  close?(): Promise<void>;
}
