// Alerts in the public API (docs/alerts.md; docs/api.md, "Alerts"): channels, the tenant policy, a
// job's `alerts` override and incidents. One set of zod schemas validates requests, types the
// services and generates the OpenAPI document.
import { INCIDENT_KINDS, INCIDENT_STATUSES, NOTIFICATION_EVENTS, NOTIFICATION_STATUSES } from '@belfry/core';
import { z } from 'zod';
import { NullableTimestamp, PAGE_PARAMS, PageQuery, pageOf, Timestamp } from './common';

const CHANNEL_ID_SHAPE = /^ach_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

export const ChannelIdInput = z.string().regex(CHANNEL_ID_SHAPE, { error: 'is not an alert channel id' });

const HttpUrl = z
  .string()
  .max(2048, { error: 'must be at most 2048 characters' })
  .refine(
    (s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password;
      } catch {
        return false;
      }
    },
    { error: 'must be an http(s) URL without credentials' },
  );

const Email = z.email({ error: 'must be an e-mail address' }).max(320);

export const EmailChannelInput = z.strictObject({
  type: z.literal('email'),
  to: z.array(Email).min(1, { error: 'needs at least one address' }).max(20, { error: 'at most 20 addresses' }),
});
export const SlackChannelInput = z.strictObject({
  type: z.literal('slack'),
  url: HttpUrl.meta({ description: 'A Slack incoming webhook URL; write-only (reads back masked)' }),
});
export const WebhookChannelInput = z.strictObject({
  type: z.literal('webhook'),
  url: HttpUrl.meta({
    description: 'Receives notifications signed like run deliveries; a query string reads back masked',
  }),
});
export const PagerDutyChannelInput = z.strictObject({
  type: z.literal('pagerduty'),
  routingKey: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII without spaces' })
    .meta({ description: 'The Events API v2 integration (routing) key; write-only' }),
  url: HttpUrl.optional().meta({
    description: 'Events API v2 endpoint; default https://events.pagerduty.com/v2/enqueue',
  }),
});

export const AlertChannelInput = z
  .discriminatedUnion('type', [EmailChannelInput, SlackChannelInput, WebhookChannelInput, PagerDutyChannelInput])
  .meta({ id: 'AlertChannelInput' });
export type AlertChannelInput = z.output<typeof AlertChannelInput>;

export const AlertChannelPatch = z
  .strictObject({
    to: EmailChannelInput.shape.to.optional(),
    url: z.string().max(2048).optional().meta({ description: 'Sending the masked value back keeps the stored one' }),
    routingKey: z.string().max(200).optional().meta({ description: '`***` keeps the stored key' }),
  })
  .meta({ id: 'AlertChannelPatch' });
export type AlertChannelPatch = z.output<typeof AlertChannelPatch>;

const channelMeta = { id: z.string(), createdAt: Timestamp, updatedAt: Timestamp };
export const AlertChannel = z
  .discriminatedUnion('type', [
    z.strictObject({ ...channelMeta, type: z.literal('email'), to: z.array(z.string()) }),
    z.strictObject({ ...channelMeta, type: z.literal('slack'), url: z.string() }),
    z.strictObject({ ...channelMeta, type: z.literal('webhook'), url: z.string() }),
    z.strictObject({
      ...channelMeta,
      type: z.literal('pagerduty'),
      routingKey: z.string(),
      url: z.string().nullable(),
    }),
  ])
  .meta({ id: 'AlertChannel' });
export type AlertChannelView = z.output<typeof AlertChannel>;
export const AlertChannelList = pageOf(AlertChannel, 'AlertChannelList');

export const AlertChannelsQuery = PageQuery;
export type AlertChannelsQuery = z.output<typeof AlertChannelsQuery>;

export const ChannelTestResult = z
  .strictObject({ delivered: z.boolean(), error: z.string().optional() })
  .meta({ id: 'AlertChannelTestResult' });

const Threshold = z
  .int({ error: 'must be an integer from 1 to 100, or null' })
  .min(1, { error: 'must be an integer from 1 to 100, or null' })
  .max(100, { error: 'must be an integer from 1 to 100, or null' })
  .nullable();
const LateAfter = z
  .int({ error: 'must be an integer from 5 to 86400, or null' })
  .min(5, { error: 'must be an integer from 5 to 86400, or null' })
  .max(86_400, { error: 'must be an integer from 5 to 86400, or null' })
  .nullable();

/** A job's own `alerts`: every key optional; a missing key falls back to the tenant policy. */
export const JobAlertsInput = z
  .strictObject({
    channels: z.array(ChannelIdInput).max(50).optional().meta({ description: 'Channel ids; [] sends nothing' }),
    onDead: z.boolean().optional(),
    afterConsecutiveFailures: Threshold.optional(),
    lateAfterSeconds: LateAfter.optional(),
    notifyRecovery: z.boolean().optional(),
  })
  .meta({ id: 'JobAlerts', description: 'Absent = the tenant policy; a missing key falls back to it' });
export type JobAlertsInput = z.output<typeof JobAlertsInput>;

export const AlertPolicyInput = z
  .strictObject({
    channels: z
      .array(ChannelIdInput)
      .max(50)
      .nullable()
      .optional()
      .meta({ description: 'Default channels; null (the default) = every channel of the tenant' }),
    onDead: z.boolean().optional().meta({ description: 'Default true' }),
    afterConsecutiveFailures: Threshold.optional().meta({ description: 'Default null (off)' }),
    lateAfterSeconds: LateAfter.optional().meta({ description: 'Default null (off)' }),
    notifyRecovery: z.boolean().optional().meta({ description: 'Default true' }),
  })
  .meta({ id: 'AlertPolicyInput' });
export type AlertPolicyInput = z.output<typeof AlertPolicyInput>;

export const AlertPolicy = z
  .strictObject({
    channels: z.array(z.string()).nullable(),
    onDead: z.boolean(),
    afterConsecutiveFailures: z.int().nullable(),
    lateAfterSeconds: z.int().nullable(),
    notifyRecovery: z.boolean(),
  })
  .meta({ id: 'AlertPolicy' });
export type AlertPolicyView = z.output<typeof AlertPolicy>;

export const Notification = z
  .strictObject({
    id: z.string(),
    channelId: z.string(),
    event: z.enum(NOTIFICATION_EVENTS),
    status: z.enum(NOTIFICATION_STATUSES),
    attempts: z.int(),
    sentAt: NullableTimestamp,
    error: z.string().nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'Notification' });

export const Incident = z
  .strictObject({
    id: z.string(),
    jobId: z.string(),
    jobName: z.string().nullable(),
    kind: z.enum(INCIDENT_KINDS),
    openedAt: Timestamp,
    resolvedAt: NullableTimestamp,
    runId: z.string().nullable(),
    scheduledTime: NullableTimestamp.meta({ description: 'late: the occurrence that did not start' }),
    notifications: z.array(Notification),
  })
  .meta({ id: 'Incident' });
export type IncidentView = z.output<typeof Incident>;
export const IncidentPage = pageOf(Incident, 'IncidentPage');

export const IncidentsQuery = z.strictObject({
  status: z.enum(INCIDENT_STATUSES).optional(),
  jobId: z.string().max(100).optional(),
  ...PAGE_PARAMS,
});
export type IncidentsQuery = z.output<typeof IncidentsQuery>;
