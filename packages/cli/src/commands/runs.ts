// `belfry runs ...` (a job's runs, one run with its attempts, cancel, replay) and
// `belfry dlq ...` (the dead letter: runs whose attempts are exhausted, and replaying them).
import { Command, Option } from 'commander';
import type { Context } from '../context';
import { UsageError } from '../errors';
import { type DeadLetterReplay, RUN_STATUSES, type RunStatus } from '@belfry/client';
import { deadLetterTable, runDetail, runsTable } from '../views';
import {
  addPageOptions,
  choiceArg,
  clientFor,
  collect,
  emit,
  jsonOption,
  morePages,
  type PageFlags,
  plural,
} from './shared';

export function runsCommand(ctx: Context): Command {
  const runs = new Command('runs').description("a job's runs and their delivery attempts");

  addPageOptions(
    runs
      .command('list')
      .description("list a job's runs, newest first")
      .requiredOption('--job <id>', 'the job whose runs to list')
      .option('--status <status>', `only runs with this status (${RUN_STATUSES.join(', ')})`, choiceArg(RUN_STATUSES)),
  )
    .addOption(jsonOption())
    .action(async (flags: PageFlags & { job: string; status?: RunStatus; json?: boolean }) => {
      const client = clientFor(ctx);
      const page = await collect(flags, (q) => client.listRuns(flags.job, { ...q, status: flags.status }));
      emit(ctx, flags.json, page, () => runsTable(page.data, ctx.now()));
      morePages(ctx, page, flags.json);
    });

  runs
    .command('get')
    .description('show one run with every attempt')
    .argument('<runId>', 'run id')
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      const run = await clientFor(ctx).getRun(id);
      emit(ctx, flags.json, run, () => runDetail(run, ctx.now()));
    });

  runs
    .command('cancel')
    .description('cancel a run that has not finished')
    .argument('<runId>', 'run id')
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      const run = await clientFor(ctx).cancelRun(id);
      emit(ctx, flags.json, run, () => `Cancelled ${run.id}: ${run.status}.`);
    });

  runs
    .command('replay')
    .description("run a finished run's job again now, as a new run linked to it")
    .argument('<runId>', 'run id')
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      const run = await clientFor(ctx).replayRun(id);
      emit(ctx, flags.json, run, () => `Replayed ${id} as ${run.id} (${run.status}).`);
    });

  return runs;
}

interface ReplayFlags {
  run?: string[];
  all?: boolean;
  job?: string;
  dryRun?: boolean;
  json?: boolean;
}

export function dlqCommand(ctx: Context): Command {
  const dlq = new Command('dlq').description('the dead letter: runs whose attempts are exhausted');

  addPageOptions(
    dlq.command('list').description('list dead runs, newest first').option('--job <id>', "only this job's dead runs"),
  )
    .addOption(jsonOption())
    .action(async (flags: PageFlags & { job?: string; json?: boolean }) => {
      const client = clientFor(ctx);
      const page = await collect(flags, (q) => client.listDeadLetter({ ...q, jobId: flags.job }));
      emit(ctx, flags.json, page, () => deadLetterTable(page.data, ctx.now()));
      morePages(ctx, page, flags.json);
    });

  dlq
    .command('replay')
    .description('replay dead runs as new runs: the listed ones (--run), or all of them (--all)')
    .addOption(new Option('--run <runId...>', 'runs to replay (repeatable)').conflicts('all'))
    .option('--all', 'replay every dead run (with --job: of that job only)')
    .option('--job <id>', 'with --all: only this job')
    .option('--dry-run', 'count what would be replayed; change nothing')
    .addOption(jsonOption())
    .action(async (flags: ReplayFlags) => {
      if (!flags.run?.length && !flags.all) throw new UsageError('dlq replay needs --run <runId>... or --all');
      if (flags.job && !flags.all) throw new UsageError('--job applies only with --all');
      const dryRun = flags.dryRun ? { dryRun: true } : {};
      const body: DeadLetterReplay = flags.all
        ? { all: true, ...(flags.job ? { jobId: flags.job } : {}), ...dryRun }
        : { runIds: flags.run ?? [], ...dryRun };
      const result = await clientFor(ctx).replayDeadLetter(body);
      emit(ctx, flags.json, result, () =>
        'wouldReplay' in result
          ? `Would replay ${plural(result.wouldReplay, 'run')} (dry run: nothing changed).`
          : `Replayed ${plural(result.replayed, 'run')}.`,
      );
    });

  return dlq;
}
