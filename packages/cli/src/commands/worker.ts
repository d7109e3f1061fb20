// `belfry worker --queue Q [--concurrency N] -- <command> [args...]`: cron for machines that
// cannot receive webhooks. See worker/pull-worker.ts for what happens per run.
import { hostname } from 'node:os';
import { Command } from 'commander';
import { BelfryClient } from '@belfry/client';
import { resolveCredentials } from '../config';
import type { Context } from '../context';
import { UsageError } from '../errors';
import { PullWorker } from '../worker/pull-worker';
import { durationArg, intArg } from './shared';

const QUEUE_NAME = /^[A-Za-z0-9._-]{1,100}$/;
/** How long one claim long-polls; the HTTP timeout leaves room above it. */
const WAIT_SECONDS = 20;

interface WorkerFlags {
  queue: string;
  concurrency: number;
  lease: number;
  name?: string;
}

export function workerCommand(ctx: Context): Command {
  return new Command('worker')
    .description('claim runs of a pull queue and run a command once per run (payload on stdin, BELFRY_* variables)')
    .usage('--queue <name> [--concurrency N] -- <command> [args...]')
    .requiredOption('--queue <name>', 'the pull queue to claim from (a job target { "type": "pull", "queue": ... })')
    .option('--concurrency <n>', 'commands running at once (1-100, default 1)', intArg(1, 100), 1)
    .option('--lease <duration>', 'lease per claim, renewed by heartbeats: 5s-15m (default 60s)', durationArg(5), 60)
    .option('--name <name>', 'how this worker appears in run history (default host:pid)')
    .argument('<command>', 'the command to run per run')
    .argument('[args...]', 'its arguments (put -- before the command)')
    .addHelpText(
      'after',
      '\nExit 0 completes the run as succeeded; any other exit fails it with the last 4 KiB of output ' +
        '(retried per the job’s retry policy).\nEnvironment: BELFRY_RUN_ID, BELFRY_JOB_ID, BELFRY_SCHEDULED_TIME, ' +
        'BELFRY_ATTEMPT, BELFRY_PAYLOAD, BELFRY_QUEUE.\nCtrl-C lets running commands finish, then exits; a second ' +
        'Ctrl-C stops them (their runs fail and are retried).\n\nExample:\n' +
        '  belfry worker --queue reports --concurrency 4 -- ./make-report.sh --daily',
    )
    .action(async (command: string, args: string[], flags: WorkerFlags) => {
      if (!QUEUE_NAME.test(flags.queue)) {
        throw new UsageError('--queue must be 1-100 characters of letters, digits, ".", "_" or "-"');
      }
      if (flags.lease > 900) throw new UsageError('--lease must be at most 15m');
      const { url, token } = resolveCredentials(ctx.env);
      const client = new BelfryClient({
        baseUrl: url,
        token,
        userAgent: `belfry-cli/${ctx.version} (worker)`,
        timeoutMs: (WAIT_SECONDS + 30) * 1000,
        ...(ctx.fetch ? { fetch: ctx.fetch } : {}),
      });
      const worker = new PullWorker(client, {
        queue: flags.queue,
        concurrency: flags.concurrency,
        leaseSeconds: flags.lease,
        waitSeconds: WAIT_SECONDS,
        name: flags.name ?? `${hostname()}:${process.pid}`,
        command,
        args,
        env: ctx.processEnv ?? {},
        log: (line) => ctx.io.err(`[belfry worker] ${line}\n`),
        output: { out: (c) => ctx.io.out(c.toString('utf8')), err: (c) => ctx.io.err(c.toString('utf8')) },
      });
      let interrupts = 0;
      const release = ctx.onInterrupt?.(() => {
        interrupts++;
        if (interrupts === 1) worker.stop();
        else worker.kill();
      });
      try {
        await worker.run();
      } finally {
        release?.();
      }
    });
}
