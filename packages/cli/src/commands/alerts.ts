// `belfry alerts channels ...` (alert channels: list, get, create, update, delete, test),
// `belfry alerts policy get|set` (the tenant's default alert settings) and
// `belfry incidents list` (docs/alerts.md).
import type { AlertChannelInput, AlertChannelPatch, AlertPolicyInput } from '@belfry/client';
import { Command } from 'commander';
import type { Context } from '../context';
import { CliError, UsageError } from '../errors';
import { alertChannelsTable, alertPolicyView, incidentsTable } from '../views';
import {
  addPageOptions,
  choiceArg,
  clientFor,
  collect,
  emit,
  intArg,
  jsonOption,
  morePages,
  type PageFlags,
} from './shared';

const CHANNEL_TYPES = ['email', 'slack', 'webhook', 'pagerduty'] as const;
type ChannelType = (typeof CHANNEL_TYPES)[number];

interface ChannelFlags {
  to?: string[];
  url?: string;
  routingKey?: string;
  json?: boolean;
}

const addresses = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

function channelInput(type: ChannelType, f: ChannelFlags): AlertChannelInput {
  switch (type) {
    case 'email':
      if (!f.to?.length) throw new UsageError('an email channel needs --to <address>');
      return { type, to: f.to };
    case 'slack':
    case 'webhook':
      if (!f.url) throw new UsageError(`a ${type} channel needs --url <url>`);
      return { type, url: f.url };
    case 'pagerduty':
      if (!f.routingKey) throw new UsageError('a pagerduty channel needs --routing-key <key>');
      return { type, routingKey: f.routingKey, ...(f.url ? { url: f.url } : {}) };
  }
}

function withChannelOptions(cmd: Command): Command {
  return cmd
    .option('--to <addresses>', 'email: recipient (repeat, or comma-separated)', addresses)
    .option('--url <url>', 'slack/webhook: where to post; pagerduty: the Events API v2 endpoint')
    .option('--routing-key <key>', 'pagerduty: the integration (routing) key')
    .addOption(jsonOption());
}

export function alertsCommand(ctx: Context): Command {
  const alerts = new Command('alerts').description('alert channels and the default alert policy');
  const channels = new Command('channels').description('where alerts go: email, slack, webhook, pagerduty');

  addPageOptions(
    channels.command('list').description("list the tenant's alert channels, oldest first (secrets masked)"),
  )
    .addOption(jsonOption())
    .action(async (flags: PageFlags & { json?: boolean }) => {
      const client = clientFor(ctx);
      const page = await collect(flags, (q) => client.listAlertChannels(q));
      emit(ctx, flags.json, page, () => alertChannelsTable(page.data));
      morePages(ctx, page, flags.json);
    });

  channels
    .command('get')
    .description('show one alert channel')
    .argument('<id>', 'channel id')
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      const channel = await clientFor(ctx).getAlertChannel(id);
      emit(ctx, flags.json, channel, () => alertChannelsTable([channel]));
    });

  withChannelOptions(
    channels
      .command('create')
      .description('create an alert channel')
      .argument('<type>', CHANNEL_TYPES.join(' | '), choiceArg(CHANNEL_TYPES)),
  ).action(async (type: ChannelType, flags: ChannelFlags) => {
    const channel = await clientFor(ctx).createAlertChannel(channelInput(type, flags));
    emit(ctx, flags.json, channel, () => `Created ${channel.type} channel ${channel.id}.`);
  });

  withChannelOptions(
    channels.command('update').description('change an alert channel').argument('<id>', 'channel id'),
  ).action(async (id: string, flags: ChannelFlags) => {
    const patch: AlertChannelPatch = {
      ...(flags.to ? { to: flags.to } : {}),
      ...(flags.url ? { url: flags.url } : {}),
      ...(flags.routingKey ? { routingKey: flags.routingKey } : {}),
    };
    if (!Object.keys(patch).length) throw new UsageError('nothing to change: give --to, --url or --routing-key');
    const channel = await clientFor(ctx).updateAlertChannel(id, patch);
    emit(ctx, flags.json, channel, () => `Updated ${channel.id}.`);
  });

  channels
    .command('delete')
    .description('delete an alert channel')
    .argument('<id>', 'channel id')
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      await clientFor(ctx).deleteAlertChannel(id);
      emit(ctx, flags.json, { deleted: id }, () => `Deleted ${id}.`);
    });

  channels
    .command('test')
    .description('send a test notification now')
    .argument('<id>', 'channel id')
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      const result = await clientFor(ctx).testAlertChannel(id);
      // Not delivered is a failure (exit 1); --json still prints the answer first.
      if (result.delivered || flags.json)
        emit(ctx, flags.json, result, () => `Delivered a test notification to ${id}.`);
      if (!result.delivered)
        throw new CliError(`the test notification was not delivered: ${result.error ?? 'unknown error'}`);
    });

  const policy = new Command('policy').description("the tenant's default alert settings");
  policy
    .command('get')
    .description('show the policy')
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }) => {
      const p = await clientFor(ctx).getAlertPolicy();
      emit(ctx, flags.json, p, () => alertPolicyView(p));
    });
  policy
    .command('set')
    .description('replace the policy (options left out take their defaults)')
    .option('--channel <id>', 'a default channel (repeat); none = every channel', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .option('--no-on-dead', 'do not open an incident when a run goes dead')
    .option('--after-failures <n>', 'open an incident after this many failures in a row (1..100)', intArg(1, 100))
    .option(
      '--late-after <seconds>',
      'open a late incident when an occurrence has not started this long after it was due (5..86400)',
      intArg(5, 86_400),
    )
    .option('--no-notify-recovery', 'send no notice when an incident resolves')
    .addOption(jsonOption())
    .action(
      async (flags: {
        channel?: string[];
        onDead: boolean;
        afterFailures?: number;
        lateAfter?: number;
        notifyRecovery: boolean;
        json?: boolean;
      }) => {
        const body: AlertPolicyInput = {
          channels: flags.channel ?? null,
          onDead: flags.onDead,
          afterConsecutiveFailures: flags.afterFailures ?? null,
          lateAfterSeconds: flags.lateAfter ?? null,
          notifyRecovery: flags.notifyRecovery,
        };
        const p = await clientFor(ctx).putAlertPolicy(body);
        emit(ctx, flags.json, p, () => alertPolicyView(p));
      },
    );

  alerts.addCommand(channels);
  alerts.addCommand(policy);
  return alerts;
}

export function incidentsCommand(ctx: Context): Command {
  const incidents = new Command('incidents').description('dead, failing and late jobs, and who was told');
  addPageOptions(
    incidents
      .command('list')
      .description('list incidents, newest first')
      .option('--status <status>', 'open or resolved', choiceArg(['open', 'resolved'] as const))
      .option('--job <id>', "only this job's incidents"),
  )
    .addOption(jsonOption())
    .action(async (flags: PageFlags & { status?: 'open' | 'resolved'; job?: string; json?: boolean }) => {
      const client = clientFor(ctx);
      const page = await collect(flags, (q) =>
        client.listIncidents({
          ...q,
          ...(flags.status ? { status: flags.status } : {}),
          ...(flags.job ? { jobId: flags.job } : {}),
        }),
      );
      emit(ctx, flags.json, page, () => incidentsTable(page.data, ctx.now()));
      morePages(ctx, page, flags.json);
    });
  return incidents;
}
