// The four channel types. Slack, webhook and PagerDuty are HTTPS POSTs through the run
// deliveries' own HTTP handler: the same private-address guard at connect time, the same
// Standard Webhooks headers and signature (webhook-id = idempotency-key = the message id), the
// same failure mapping and Retry-After handling. E-mail goes over SMTP with nodemailer to the
// operator's server (BELFRY_SMTP_URL), which is configuration, not tenant input.
import { HttpHandler } from '@belfry/handlers';
import nodemailer, { type Transporter } from 'nodemailer';
import { type Links, itemLines, itemTitle, messageJson, messageText, messageTitle } from './render';
import type { AlertItem, AlertMessage, ChannelConfig, ChannelSender, SendContext, SendResult } from './types';

export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
// Slack allows 50 blocks a message: a header, this many incidents, and a "more" line.
const SLACK_MAX_ITEMS = 45;

export interface SenderOptions {
  links: Links;
  allowPrivateTargets: boolean;
  /** SMTP server (smtp:// or smtps:// URL); e-mail channels fail clearly without one */
  smtpUrl?: string | undefined;
  smtpFrom?: string | undefined;
}

export class ChannelSenders implements ChannelSender {
  private readonly http: HttpHandler;
  private transport: Transporter | undefined;

  constructor(private readonly options: SenderOptions) {
    this.http = new HttpHandler({ allowPrivateTargets: options.allowPrivateTargets, userAgent: 'Belfry-Alerts/1.0' });
  }

  async send(config: ChannelConfig, message: AlertMessage, ctx: SendContext): Promise<SendResult> {
    switch (config.type) {
      case 'email':
        return this.email(config.to, message);
      case 'slack':
        return this.post(config.url, slackBody(message, this.options.links), message, ctx);
      case 'webhook':
        return this.post(config.url, messageJson(message, this.options.links), message, ctx);
      case 'pagerduty':
        return this.pagerduty(config, message, ctx);
    }
  }

  private async post(url: string, body: unknown, message: AlertMessage, ctx: SendContext, msgId = message.id) {
    const first = message.items[0];
    const outcome = await this.http.execute({ type: 'http', url, method: 'POST' }, body, {
      runId: msgId,
      jobId: first?.job.id ?? '',
      tenantId: message.tenantId,
      attempt: ctx.attempt,
      scheduledTime: first?.incident.openedAt ?? new Date(),
      timeoutMs: ctx.timeoutMs,
      signal: new AbortController().signal,
      signingSecrets: ctx.signingSecrets,
      now: () => new Date(),
    });
    if (outcome.ok) return { ok: true } as const;
    return {
      ok: false,
      error: outcome.error ?? 'failed',
      failure: outcome.failure ?? 'connection',
      httpStatus: outcome.httpStatus ?? null,
      retryAfterMs: outcome.retryAfterMs ?? null,
    } as const;
  }

  // PagerDuty has no batches: each incident is its own alert there, deduplicated by incident,
  // so a digest becomes one event per incident (trigger on open, resolve on recovery).
  private async pagerduty(
    config: Extract<ChannelConfig, { type: 'pagerduty' }>,
    message: AlertMessage,
    ctx: SendContext,
  ): Promise<SendResult> {
    const url = config.url ?? PAGERDUTY_EVENTS_URL;
    const events = message.test
      ? [pagerdutyTest(config.routingKey)]
      : message.items.map((i) => pagerdutyEvent(config.routingKey, i, this.options.links));
    for (const [n, event] of events.entries()) {
      const id = message.test ? message.id : (message.items[n]?.notificationId ?? message.id);
      const result = await this.post(url, event, message, ctx, id);
      if (!result.ok) return result;
    }
    return { ok: true };
  }

  private async email(to: string[], message: AlertMessage): Promise<SendResult> {
    const { smtpUrl, smtpFrom } = this.options;
    if (!smtpUrl)
      return {
        ok: false,
        failure: 'invalid',
        error: 'e-mail alerts need BELFRY_SMTP_URL (no SMTP server is configured)',
      };
    this.transport ??= nodemailer.createTransport(smtpUrl);
    try {
      await this.transport.sendMail({
        from: smtpFrom ?? 'Belfry <belfry@localhost>',
        to,
        subject: messageTitle(message),
        text: messageText(message, this.options.links),
        headers: { 'X-Belfry-Message-Id': message.id },
      });
      return { ok: true };
    } catch (err) {
      const e = err as { responseCode?: number; message?: string };
      // 5xx SMTP replies are permanent (no such mailbox, relaying denied); the rest may pass.
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
      return { ok: false, failure: permanent ? 'invalid' : 'connection', error: `SMTP: ${e.message ?? String(err)}` };
    }
  }

  async close(): Promise<void> {
    this.transport?.close();
    await this.http.close();
  }
}

/** Slack incoming webhook: Block Kit blocks, with `text` as the notification fallback. */
export function slackBody(message: AlertMessage, links: Links): Record<string, unknown> {
  const title = messageTitle(message);
  if (message.test) {
    return {
      text: title,
      blocks: [
        {
          type: 'section',
          text: { type: 'mrkdwn', text: '*Belfry test notification*: this channel receives alerts.' },
        },
      ],
    };
  }
  const shown = message.items.slice(0, SLACK_MAX_ITEMS);
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: title.slice(0, 150) } },
  ];
  for (const item of shown) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: slackItem(item, links).slice(0, 3000) } });
  }
  const more = message.items.length - shown.length;
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `${more > 0 ? `…and ${more} more. ` : ''}<${links.incidents()}|All incidents>`,
      },
    ],
  });
  return { text: title, blocks };
}

function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function slackItem(item: AlertItem, links: Links): string {
  const i = item.incident;
  const lines = [
    `*${slackEscape(itemTitle(item))}*`,
    `Job: <${links.job(item.job.id)}|${slackEscape(item.job.name)}> (\`${item.job.id}\`)`,
    `Incident: <${links.incident(i.id)}|${i.id}> (${i.kind})`,
  ];
  if (i.runId) lines.push(`Run: <${links.run(i.runId)}|${i.runId}>`);
  return lines.join('\n');
}

/** PagerDuty Events API v2 event for one incident: trigger on open, resolve on recovery. */
export function pagerdutyEvent(routingKey: string, item: AlertItem, links: Links): Record<string, unknown> {
  const dedupKey = `belfry-${item.incident.id}`;
  if (item.event === 'resolved') return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey };
  const i = item.incident;
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: itemTitle(item).slice(0, 1024),
      source: 'belfry',
      severity: i.kind === 'failing' ? 'warning' : 'error',
      timestamp: i.openedAt.toISOString(),
      component: item.job.name,
      class: i.kind,
      custom_details: {
        job_id: item.job.id,
        job_name: item.job.name,
        incident_id: i.id,
        run_id: i.runId,
        details: itemLines(item, links).join('\n'),
      },
    },
    links: [
      ...(i.runId ? [{ href: links.run(i.runId), text: `Run ${i.runId}` }] : []),
      { href: links.job(item.job.id), text: `Job ${item.job.name}` },
    ],
  };
}

function pagerdutyTest(routingKey: string): Record<string, unknown> {
  // A trigger that resolves itself would need two calls; a test is an info-level trigger.
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: 'belfry-test',
    payload: { summary: 'Belfry test notification', source: 'belfry', severity: 'info' },
  };
}
