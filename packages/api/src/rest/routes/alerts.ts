// /api/v1/alert-channels, /alert-policy and /incidents: thin handlers over the alerts services.
import { z } from 'zod';
import {
  AlertChannel,
  AlertChannelInput,
  AlertChannelList,
  AlertChannelsQuery,
  AlertChannelPatch,
  AlertPolicy,
  AlertPolicyInput,
  ChannelTestResult,
  IncidentPage,
  IncidentsQuery,
} from '../../schemas/alerts';
import {
  createChannel,
  deleteChannel,
  getChannel,
  listChannels,
  testChannel,
  updateChannel,
} from '../../services/alert-channels';
import { getPolicy, putPolicy } from '../../services/alert-policy';
import { listIncidents } from '../../services/incidents';
import { json, noContent } from '../response';
import { route } from '../route';

const channelOk = {
  description: 'The channel (secrets masked)',
  content: { 'application/json': { schema: AlertChannel } },
};
const policyOk = { description: "The tenant's alert policy", content: { 'application/json': { schema: AlertPolicy } } };
const TAG = 'Alerts';

export const alertRoutes = [
  route({
    method: 'GET',
    path: '/api/v1/alert-channels',
    operationId: 'listAlertChannels',
    summary: "The tenant's alert channels",
    tag: TAG,
    scope: 'jobs:read',
    query: AlertChannelsQuery,
    responses: {
      200: {
        description: 'A page of channels, oldest first',
        content: { 'application/json': { schema: AlertChannelList } },
      },
    },
    async handle({ deps, actor, query }) {
      return json(200, await listChannels(deps, actor, query));
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/alert-channels',
    operationId: 'createAlertChannel',
    summary: 'Create an alert channel (e-mail, Slack, webhook or PagerDuty)',
    description:
      'Secrets are write-only: a Slack URL, a webhook URL’s query string and a PagerDuty routing key read back as `***`. ' +
      'URLs must be http(s) without credentials; where they connect to passes the private-address guard when a notification is sent.',
    tag: TAG,
    scope: 'admin',
    body: AlertChannelInput,
    responses: {
      201: {
        description: 'Created',
        headers: z.object({ Location: z.string() }),
        content: { 'application/json': { schema: AlertChannel } },
      },
    },
    async handle({ deps, actor, body }) {
      const channel = await createChannel(deps, actor, body);
      return json(201, channel, { location: `/api/v1/alert-channels/${channel.id}` });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/alert-channels/{id}',
    operationId: 'getAlertChannel',
    summary: 'One alert channel',
    tag: TAG,
    scope: 'jobs:read',
    responses: { 200: channelOk },
    async handle({ deps, actor, params }) {
      return json(200, await getChannel(deps, actor, params.id as string));
    },
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/alert-channels/{id}',
    operationId: 'updateAlertChannel',
    summary: 'Change an alert channel',
    description: 'The type cannot change. Sending a masked value (`***`) back keeps the stored secret.',
    tag: TAG,
    scope: 'admin',
    body: AlertChannelPatch,
    responses: { 200: channelOk },
    async handle({ deps, actor, params, body }) {
      return json(200, await updateChannel(deps, actor, params.id as string, body));
    },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/alert-channels/{id}',
    operationId: 'deleteAlertChannel',
    summary: 'Delete an alert channel',
    description: 'Notifications still waiting for it are recorded as failed.',
    tag: TAG,
    scope: 'admin',
    responses: { 204: { description: 'Deleted' } },
    async handle({ deps, actor, params }) {
      await deleteChannel(deps, actor, params.id as string);
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/alert-channels/{id}/test',
    operationId: 'testAlertChannel',
    summary: 'Send a test notification now',
    description: 'Answers 200 whether or not it was delivered: `delivered` says, `error` says why not.',
    tag: TAG,
    scope: 'admin',
    responses: { 200: { description: 'The outcome', content: { 'application/json': { schema: ChannelTestResult } } } },
    async handle({ deps, actor, params }) {
      return json(200, await testChannel(deps, actor, params.id as string));
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/alert-policy',
    operationId: 'getAlertPolicy',
    summary: "The tenant's default alert settings",
    tag: TAG,
    scope: 'jobs:read',
    responses: { 200: policyOk },
    async handle({ deps, actor }) {
      return json(200, await getPolicy(deps, actor));
    },
  }),
  route({
    method: 'PUT',
    path: '/api/v1/alert-policy',
    operationId: 'putAlertPolicy',
    summary: "Replace the tenant's default alert settings",
    description:
      'A key left out takes its default (onDead true, notifyRecovery true, the rest null: off / every channel).',
    tag: TAG,
    scope: 'admin',
    body: AlertPolicyInput,
    responses: { 200: policyOk },
    async handle({ deps, actor, body }) {
      return json(200, await putPolicy(deps, actor, body));
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/incidents',
    operationId: 'listIncidents',
    summary: 'Incidents, newest first, each with its notifications',
    tag: TAG,
    scope: 'runs:read',
    query: IncidentsQuery,
    responses: {
      200: { description: 'A page of incidents', content: { 'application/json': { schema: IncidentPage } } },
    },
    async handle({ deps, actor, query }) {
      return json(200, await listIncidents(deps, actor, query));
    },
  }),
];
