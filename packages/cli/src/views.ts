// How jobs, runs and attempts look in human output. Each view is a pure function of the API
// object and `now`, so the layout is unit-tested without a server.
import { formatInstant, formatMs, formatRelative, formatSeconds } from './durations';
import { keyValues, table, truncate } from './format';
import type { AlertChannel, AlertPolicy, DeadLetterRun, Incident, Job, Run, Schedule } from '@belfry/client';

export function describeSchedule(schedule: Schedule): string {
  switch (schedule.type) {
    case 'cron':
      return `cron ${schedule.expression}${schedule.timezone && schedule.timezone !== 'UTC' ? ` (${schedule.timezone})` : ''}`;
    case 'interval':
      return `every ${formatSeconds(schedule.everySeconds)}`;
    case 'once':
      return `once at ${schedule.runAt}`;
    default:
      return JSON.stringify(schedule);
  }
}

function runStatus(run: Run): string {
  return run.skipReason ? `${run.status} (${run.skipReason})` : run.status;
}

function elapsed(start: string | null, end: string | null): string {
  if (!start || !end) return '-';
  return formatMs(new Date(end).getTime() - new Date(start).getTime());
}

export function jobsTable(jobs: Job[], now: Date): string {
  if (!jobs.length) return 'No jobs.';
  return table(
    [
      { header: 'ID' },
      { header: 'NAME', max: 32 },
      { header: 'STATUS' },
      { header: 'SCHEDULE', max: 40 },
      { header: 'NEXT RUN' },
      { header: 'TARGET', max: 60 },
    ],
    jobs.map((j) => [
      j.id,
      j.name,
      j.status,
      describeSchedule(j.schedule),
      formatRelative(j.nextRunAt, now),
      describeTarget(j.target),
    ]),
  );
}

/** One line per target, by kind (secrets in the URL come masked from the server). */
export function describeTarget(target: Job['target']): string {
  switch (target.type) {
    case 'http':
      return `${target.method} ${target.url}`;
    case 'amqp':
      return `amqp ${target.url} exchange ${JSON.stringify(target.exchange)} routing key ${JSON.stringify(target.routingKey)}${target.persistent ? '' : ' (transient)'}`;
    case 'nats':
      return `nats ${target.url} subject ${target.subject}`;
    case 'pull':
      return `pull queue ${target.queue}`;
    case 'container':
      return `container ${target.image}${target.command ? ` ${JSON.stringify(target.command)}` : ''}`;
    default:
      return (target as { type: string }).type;
  }
}

/** The job detail's target rows: the line above, then headers, or a container's entrypoint, env and limits. */
function targetDetail(target: Job['target']): Array<[string, string]> {
  const pairs = (map: Record<string, string>) => {
    const entries = Object.entries(map);
    return entries.length ? entries.map(([k, v]) => `${k}: ${v}`).join(', ') : '-';
  };
  if (target.type === 'pull') return [['target', describeTarget(target)]];
  if (target.type !== 'container') {
    return [
      ['target', describeTarget(target)],
      ['headers', pairs(target.headers ?? {})],
    ];
  }
  return [
    ['target', describeTarget(target)],
    ...(target.entrypoint ? ([['entrypoint', JSON.stringify(target.entrypoint)]] as Array<[string, string]>) : []),
    ['env', pairs(target.env)],
    ['limits', `${target.memoryMb} MiB, ${target.cpus} CPU, network ${target.network}, pull ${target.pullPolicy}`],
  ];
}

export function jobDetail(job: Job, now: Date): string {
  const { retry } = job;
  return keyValues([
    ['id', job.id],
    ['name', job.name],
    ['status', job.status],
    ['schedule', describeSchedule(job.schedule)],
    ['next run', formatInstant(job.nextRunAt, now)],
    ...targetDetail(job.target),
    ['payload', job.payload === null || job.payload === undefined ? '-' : truncate(JSON.stringify(job.payload), 200)],
    [
      'retry',
      `${retry.maxAttempts} attempt${retry.maxAttempts === 1 ? '' : 's'}, backoff ${formatSeconds(retry.initialDelaySeconds)} up to ${formatSeconds(retry.maxDelaySeconds)}`,
    ],
    ['timeout', formatSeconds(job.timeoutSeconds)],
    ['priority', job.priority],
    ['misfire', job.misfirePolicy],
    ['overlap', job.overlapPolicy],
    ['jitter', job.jitterSeconds ? `up to ${formatSeconds(job.jitterSeconds)} after each occurrence` : '-'],
    ['created', formatInstant(job.createdAt, now)],
    ['updated', formatInstant(job.updatedAt, now)],
  ]);
}

export function runsTable(runs: Run[], now: Date): string {
  if (!runs.length) return 'No runs.';
  return table(
    [
      { header: 'ID' },
      { header: 'STATUS' },
      { header: 'TRIGGER' },
      { header: 'SCHEDULED' },
      { header: 'ATTEMPT' },
      { header: 'DURATION' },
      { header: 'FINISHED' },
    ],
    runs.map((r) => [
      r.id,
      runStatus(r),
      r.trigger,
      formatRelative(r.scheduledTime, now),
      String(r.attempt),
      elapsed(r.startedAt, r.finishedAt),
      formatRelative(r.finishedAt, now),
    ]),
  );
}

export function runDetail(run: Run, now: Date): string {
  const head = keyValues([
    ['id', run.id],
    ['job', run.jobId],
    ['status', runStatus(run)],
    ['trigger', run.replayOf ? `${run.trigger} of ${run.replayOf}` : run.trigger],
    ['scheduled', formatInstant(run.scheduledTime, now)],
    ...(run.dueAt !== run.scheduledTime ? ([['due', formatInstant(run.dueAt, now)]] as [string, string][]) : []),
    ['started', formatInstant(run.startedAt, now)],
    ['finished', formatInstant(run.finishedAt, now)],
    ['attempts', String(run.attempts.length)],
  ]);
  if (!run.attempts.length) return head;
  const attempts = table(
    [
      { header: '#' },
      { header: 'STATUS' },
      { header: 'RESULT' },
      { header: 'DURATION' },
      { header: 'STARTED' },
      { header: 'WORKER', max: 24 },
      { header: 'ERROR', max: 60 },
    ],
    run.attempts.map((a) => [
      String(a.attempt),
      a.status,
      attemptResult(a),
      a.durationMs === null ? '-' : formatMs(a.durationMs),
      formatRelative(a.startedAt, now),
      a.workerId ?? '-',
      a.error ?? '',
    ]),
  );
  const last = run.attempts[run.attempts.length - 1];
  const snippet = last?.responseSnippet ? `\n\nlast response: ${truncate(last.responseSnippet, 300)}` : '';
  return `${head}\n\n${attempts}${snippet}`;
}

export function deadLetterTable(runs: DeadLetterRun[], now: Date): string {
  if (!runs.length) return 'The dead letter is empty.';
  return table(
    [
      { header: 'RUN' },
      { header: 'JOB' },
      { header: 'SCHEDULED' },
      { header: 'ATTEMPTS' },
      { header: 'FINISHED' },
      { header: 'REPLAYED BY' },
      { header: 'LAST ERROR', max: 60 },
    ],
    runs.map((r) => [
      r.id,
      r.jobId,
      formatRelative(r.scheduledTime, now),
      String(r.attempts.length || r.attempt),
      formatRelative(r.finishedAt, now),
      r.replayedBy ?? '-',
      r.attempts[r.attempts.length - 1]?.error ?? '',
    ]),
  );
}

export function alertChannelsTable(channels: AlertChannel[]): string {
  if (!channels.length) return 'No alert channels.';
  return table(
    [{ header: 'ID' }, { header: 'TYPE' }, { header: 'WHERE', max: 70 }],
    channels.map((c) => [
      c.id,
      c.type,
      c.type === 'email' ? c.to.join(', ') : c.type === 'pagerduty' ? `routing key ${c.routingKey}` : c.url,
    ]),
  );
}

export function alertPolicyView(p: AlertPolicy): string {
  return keyValues([
    ['Channels', p.channels === null ? 'every channel' : p.channels.length ? p.channels.join(', ') : 'none'],
    ['On dead', p.onDead ? 'yes' : 'no'],
    ['After failures in a row', p.afterConsecutiveFailures === null ? 'off' : String(p.afterConsecutiveFailures)],
    ['Late after', p.lateAfterSeconds === null ? 'off' : formatSeconds(p.lateAfterSeconds)],
    ['Notify recovery', p.notifyRecovery ? 'yes' : 'no'],
  ]);
}

export function incidentsTable(incidents: Incident[], now: Date): string {
  if (!incidents.length) return 'No incidents.';
  return table(
    [
      { header: 'INCIDENT' },
      { header: 'KIND' },
      { header: 'JOB', max: 40 },
      { header: 'OPENED' },
      { header: 'RESOLVED' },
      { header: 'NOTIFICATIONS' },
    ],
    incidents.map((i) => [
      i.id,
      i.kind,
      i.jobName ?? i.jobId,
      formatRelative(i.openedAt, now),
      formatRelative(i.resolvedAt, now),
      i.notifications.length ? i.notifications.map((n) => `${n.event} ${n.status}`).join(', ') : '-',
    ]),
  );
}

/** What answered an attempt: the HTTP status, or a container's exit code. */
function attemptResult(a: { httpStatus: number | null; exitCode?: number | null }): string {
  if (a.httpStatus !== null) return String(a.httpStatus);
  if (a.exitCode !== null && a.exitCode !== undefined) return `exit ${a.exitCode}`;
  return '-';
}
