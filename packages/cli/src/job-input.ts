// `jobs create`: turns flags (and an optional --file holding a whole POST /jobs body) into
// the request body. Flags win over the file, field by field, so one file can serve as a
// template (`--file base.json --name other`). Values are checked here only as far as needed
// to build the body; the server's validation is the authority and its errors are shown as is.
import { UsageError } from './errors';
import { isObject, type JobCreateBody, type JobCreateFlags, joinList } from './job-flags';
import { buildTarget } from './job-target';

export { parseArgs, parseCpus, parseEnv, parseHeader, parseJson } from './flag-values';
export { JOB_FIELD_HINTS, type JobCreateBody, type JobCreateFlags } from './job-flags';
export { kindOfUrl } from './job-target';

export function buildJobBody(file: unknown, flags: JobCreateFlags): JobCreateBody {
  if (file !== undefined && !isObject(file)) {
    throw new UsageError('--file must hold a JSON object: the body of POST /api/v1/jobs');
  }
  const body: JobCreateBody = { ...(file ?? {}) };
  const scheduleFlags = [flags.cron !== undefined, flags.every !== undefined, flags.at !== undefined].filter(
    Boolean,
  ).length;
  if (scheduleFlags > 1) throw new UsageError('give only one of --cron, --every and --at');

  if (flags.name !== undefined) body.name = flags.name;

  if (flags.cron !== undefined) {
    body.schedule = {
      type: 'cron',
      expression: flags.cron,
      ...(flags.timezone !== undefined ? { timezone: flags.timezone } : {}),
    };
  } else if (flags.timezone !== undefined) {
    const current = body.schedule;
    if (!isObject(current) || current.type !== 'cron')
      throw new UsageError('--timezone applies only to a cron schedule (--cron)');
    body.schedule = { ...current, timezone: flags.timezone } as JobCreateBody['schedule'];
  }
  if (flags.every !== undefined) body.schedule = { type: 'interval', everySeconds: flags.every };
  if (flags.at !== undefined) body.schedule = { type: 'once', runAt: flags.at };

  const target = buildTarget(body.target, flags);
  if (target !== undefined) body.target = target;
  if (flags.payload !== undefined) body.payload = flags.payload;
  if (flags.maxAttempts !== undefined) {
    body.retry = { ...(isObject(body.retry) ? body.retry : {}), maxAttempts: flags.maxAttempts };
  }
  if (flags.timeout !== undefined) body.timeoutSeconds = flags.timeout;
  if (flags.priority !== undefined) body.priority = flags.priority;
  if (flags.misfire !== undefined) body.misfirePolicy = flags.misfire;
  if (flags.overlap !== undefined) body.overlapPolicy = flags.overlap;
  if (flags.jitter !== undefined) body.jitterSeconds = flags.jitter;

  if (file === undefined) {
    const missing = [
      body.name === undefined ? '--name' : null,
      body.schedule === undefined ? 'a schedule (--cron, --every or --at)' : null,
      body.target === undefined ? '--url, --queue or --image' : null,
    ].filter((m): m is string => m !== null);
    if (missing.length) throw new UsageError(`jobs create needs ${joinList(missing)} (or --file job.json)`);
  }
  return body;
}
