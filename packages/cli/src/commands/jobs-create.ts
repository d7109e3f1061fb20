// `belfry jobs create`: one job from flags and/or a JSON file (--file), or many from an NDJSON
// file (--from-file), sent in batches of 1,000 through POST /api/v1/jobs/batch.
import { type Command, Option } from 'commander';
import type { Context } from '../context';
import { parseAt } from '../durations';
import { type JobCreate, type Job, MISFIRE_POLICIES, OVERLAP_POLICIES, PRIORITIES } from '@belfry/client';
import { UsageError, withHints } from '../errors';
import { BATCH_SIZE, batchFailure, chunks, parseNdjson } from '../job-batch';
import {
  buildJobBody,
  JOB_FIELD_HINTS,
  type JobCreateFlags,
  parseArgs,
  parseCpus,
  parseEnv,
  parseHeader,
  parseJson,
} from '../job-input';
import { jobDetail } from '../views';
import { choiceArg, clientFor, durationArg, emit, intArg, jsonOption, parseWith, plural, readInput } from './shared';

interface CreateFlags extends JobCreateFlags {
  file?: string;
  fromFile?: string;
  payloadFile?: string;
  idempotencyKey?: string;
  json?: boolean;
}

/** Adds `create` to the `jobs` command. */
export function addCreateCommand(jobs: Command, ctx: Context): void {
  jobs
    .command('create')
    .description(
      'create a job from flags, or from a JSON file holding the POST /api/v1/jobs body; or many jobs from an NDJSON file',
    )
    .option('--file <path>', 'the whole request body as JSON ("-" for stdin); flags given too override its fields')
    .addOption(
      new Option(
        '--from-file <path>',
        'NDJSON, one POST /api/v1/jobs body per line ("-" for stdin): created in batches of 1,000, each all or nothing',
      ).conflicts('file'),
    )
    .option('--name <name>', 'job name (1-200 characters)')
    .addOption(
      new Option('--cron <expr>', 'cron schedule: 5 fields, or 6 with seconds first').conflicts(['every', 'at']),
    )
    .option('--timezone <zone>', 'IANA time zone for --cron (default UTC)')
    .addOption(
      new Option('--every <interval>', 'interval schedule: seconds or 30s, 5m, 1h30m')
        .argParser(durationArg(1))
        .conflicts(['cron', 'at']),
    )
    .addOption(
      new Option('--at <time>', 'run once: ISO 8601 time with a zone, or +<duration> from now (+5m)')
        .argParser(parseWith((v) => parseAt(v, ctx.now())))
        .conflicts(['cron', 'every']),
    )
    .option(
      '--type <kind>',
      'target kind: http, amqp, nats, pull or container (default: --queue → pull, --image → container, else from the --url scheme: amqp(s):// → amqp, nats:// or tls:// → nats, else http)',
    )
    .addOption(
      new Option(
        '--url <url>',
        'target URL: http(s):// webhook, amqp(s)://user:pass@host/vhost broker or nats://user:pass@host',
      ).conflicts('queue'),
    )
    .option('--method <method>', 'http: HTTP method (default POST)')
    .option('--header <name:value>', 'request or message header; repeat for more', parseWith(parseHeader))
    .option('--exchange <name>', 'amqp: the exchange to publish to ("" for the default exchange)')
    .option('--routing-key <key>', 'amqp: the routing key (default "")')
    .option('--transient', 'amqp: publish non-persistent messages (default persistent)')
    .option('--subject <subject>', 'nats: the JetStream subject to publish to')
    .option('--image <ref>', "container target: the image (must match the server's BELFRY_CONTAINER_IMAGES)")
    .option(
      '--command <args>',
      'container command: a JSON array, or words split on spaces',
      parseWith((v) => parseArgs(v, '--command')),
    )
    .option(
      '--entrypoint <args>',
      'container entrypoint: a JSON array, or words split on spaces',
      parseWith((v) => parseArgs(v, '--entrypoint')),
    )
    .option('--env <NAME=value>', 'container environment variable; repeat for more', parseWith(parseEnv))
    .option('--memory-mb <n>', 'container memory limit in MiB (default 512)', intArg(6, 65_536))
    .option('--cpus <n>', 'container CPU limit (default 1)', parseWith(parseCpus))
    .option('--network <mode>', 'container network: none (default) or bridge')
    .option('--pull-policy <policy>', 'if-missing (default), never or always')
    .option('--user <user>', 'container user (name or uid, optionally :group)')
    .option('--workdir <path>', 'container working directory')
    .addOption(
      new Option(
        '--queue <name>',
        'pull queue instead of a webhook: your workers claim the runs (belfry worker)',
      ).conflicts(['url', 'method', 'header']),
    )
    .addOption(
      new Option('--payload <json>', 'JSON body sent to the target')
        .argParser(parseWith((v) => parseJson(v, '--payload')))
        .conflicts('payloadFile'),
    )
    .option('--payload-file <path>', 'read the JSON body from a file ("-" for stdin)')
    .option('--max-attempts <n>', 'attempts before the run goes dead (1-100, default 5)', intArg(1, 100))
    .option('--timeout <duration>', 'per-attempt timeout: seconds or 30s, 2m (default 30s)', durationArg(1))
    .option('--priority <priority>', `${PRIORITIES.join(', ')} (default normal)`, choiceArg(PRIORITIES))
    .option(
      '--misfire <policy>',
      `missed occurrences: ${MISFIRE_POLICIES.join(', ')} (default run_once)`,
      choiceArg(MISFIRE_POLICIES),
    )
    .option(
      '--overlap <policy>',
      `while the previous run is running: ${OVERLAP_POLICIES.join(', ')} (default allow)`,
      choiceArg(OVERLAP_POLICIES),
    )
    .option(
      '--jitter <duration>',
      'spread herds: start each occurrence up to this long after its time (0-1h, e.g. 60s; default 0)',
      durationArg(0),
    )
    .option('--idempotency-key <key>', 'repeat-safe creation: the same key and body answer the same job for 24 h')
    .addOption(jsonOption())
    .action(async (flags: CreateFlags) => {
      if (flags.fromFile !== undefined) {
        await createFromNdjson(ctx, flags.fromFile, flags);
        return;
      }
      const file =
        flags.file === undefined
          ? undefined
          : parseJson(await readInput(ctx, flags.file, '--file'), `--file ${flags.file}`);
      const payload =
        flags.payloadFile === undefined
          ? flags.payload
          : parseJson(await readInput(ctx, flags.payloadFile, '--payload-file'), `--payload-file ${flags.payloadFile}`);
      const body = buildJobBody(file, { ...flags, payload });
      const client = clientFor(ctx);
      // The draft goes out as the user gave it: the server's validation names what is missing.
      const job = await client
        .createJob(body as JobCreate, { idempotencyKey: flags.idempotencyKey })
        .catch(withHints(JOB_FIELD_HINTS));
      emit(ctx, flags.json, job, () => `Created ${job.id} (${job.name}).\n\n${jobDetail(job, ctx.now())}`);
    });
}

/** Flags that build one job; with --from-file every line is a whole job, so they do not apply. */
const SINGLE_JOB_FLAGS = [
  'name',
  'cron',
  'timezone',
  'every',
  'at',
  'url',
  'method',
  'header',
  'payload',
  'payloadFile',
  'maxAttempts',
  'timeout',
  'priority',
  'misfire',
  'overlap',
  'jitter',
] as const;

async function createFromNdjson(ctx: Context, path: string, flags: CreateFlags): Promise<void> {
  const given = SINGLE_JOB_FLAGS.filter((f) => flags[f] !== undefined);
  if (given.length) {
    const flag = (given[0] as string).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    throw new UsageError(`--from-file takes every job from the file; --${flag} cannot be combined with it`);
  }
  const source = path === '-' ? 'stdin' : path;
  const lines = parseNdjson(await readInput(ctx, path, '--from-file'), source);
  const client = clientFor(ctx);
  const created: Job[] = [];
  const batches = chunks(lines, BATCH_SIZE);
  for (const [i, batch] of batches.entries()) {
    // One key per batch: re-running the same command after a failure re-sends each batch
    // with its own key, so batches that were created answer their jobs instead of duplicating.
    const idempotencyKey = flags.idempotencyKey === undefined ? undefined : `${flags.idempotencyKey}:${i}`;
    const jobs = await client
      .createJobs(
        batch.map((l) => l.body as JobCreate),
        { idempotencyKey },
      )
      .catch((err: unknown) => {
        throw batchFailure(err, batch, source, created.length);
      });
    created.push(...jobs);
    if (!flags.json && batches.length > 1) ctx.io.err(`created ${created.length} of ${lines.length} jobs\n`);
  }
  emit(ctx, flags.json, { data: created }, () => `Created ${plural(created.length, 'job')} from ${source}.`);
}
