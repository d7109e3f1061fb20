// `belfry jobs ...`: list, show, create, pause, resume, delete and trigger jobs.
import { Command } from 'commander';
import type { Context } from '../context';
import { formatRelative } from '../durations';
import { JOB_STATUSES, type JobStatus } from '@belfry/client';
import { describeSchedule, jobDetail, jobsTable, runsTable } from '../views';
import { addCreateCommand } from './jobs-create';
import { addPageOptions, choiceArg, clientFor, collect, emit, jsonOption, morePages, type PageFlags } from './shared';

export function jobsCommand(ctx: Context): Command {
  const jobs = new Command('jobs').description('scheduled jobs');

  addPageOptions(
    jobs
      .command('list')
      .description('list jobs, newest first')
      .option('--status <status>', `only jobs with this status (${JOB_STATUSES.join(', ')})`, choiceArg(JOB_STATUSES))
      .option('--name <prefix>', 'only jobs whose name starts with this'),
  )
    .addOption(jsonOption())
    .action(async (flags: PageFlags & { status?: JobStatus; name?: string; json?: boolean }) => {
      const client = clientFor(ctx);
      const page = await collect(flags, (q) => client.listJobs({ ...q, status: flags.status, name: flags.name }));
      emit(ctx, flags.json, page, () => jobsTable(page.data, ctx.now()));
      morePages(ctx, page, flags.json);
    });

  jobs
    .command('get')
    .description('show one job')
    .argument('<id>', 'job id')
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      const job = await clientFor(ctx).getJob(id);
      emit(ctx, flags.json, job, () => jobDetail(job, ctx.now()));
    });

  addCreateCommand(jobs, ctx);

  for (const [name, verb, call] of [
    ['pause', 'Paused', 'pauseJob'],
    ['resume', 'Resumed', 'resumeJob'],
  ] as const) {
    jobs
      .command(name)
      .description(
        `${name} a job${name === 'pause' ? ': no new occurrences until resumed' : ': schedule the next occurrence again'}`,
      )
      .argument('<id>', 'job id')
      .addOption(jsonOption())
      .action(async (id: string, flags: { json?: boolean }) => {
        const job = await clientFor(ctx)[call](id);
        emit(ctx, flags.json, job, () => {
          const next = job.nextRunAt ? `; next run ${formatRelative(job.nextRunAt, ctx.now())}` : '';
          return `${verb} ${job.id} (${job.name}): ${job.status}, ${describeSchedule(job.schedule)}${next}.`;
        });
      });
  }

  jobs
    .command('delete')
    .description('delete a job: pending runs are cancelled, history is kept')
    .argument('<id>', 'job id')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(jsonOption())
    .action(async (id: string, flags: { yes?: boolean; json?: boolean }) => {
      if (!flags.yes && ctx.io.interactive && !(await ctx.io.confirm(`Delete job ${id}?`))) {
        ctx.io.err('Not deleted.\n');
        return;
      }
      await clientFor(ctx).deleteJob(id);
      // A delete answers 204: with --json there is nothing to print.
      if (!flags.json) ctx.io.out(`Deleted ${id}.\n`);
    });

  jobs
    .command('trigger')
    .description('run a job now, once, outside its schedule')
    .argument('<id>', 'job id')
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      const run = await clientFor(ctx).triggerJob(id);
      emit(
        ctx,
        flags.json,
        run,
        () => `Triggered ${id}: run ${run.id} (${run.status}).\n\n${runsTable([run], ctx.now())}`,
      );
    });

  return jobs;
}
