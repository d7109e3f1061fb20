// The job form's state, and its conversion to and from the API's job shape.
import type { MisfirePolicy, OverlapPolicy, Priority, Target } from '@belfry/client';
import type { Schedule } from '../../../_lib/schedule';
import { viewerZone } from '../../../_lib/time';
import { type ContainerFields, containerFieldsOf, containerTargetOf, emptyContainerFields } from './container-model';

export type ScheduleKind = Schedule['type'];
export type IntervalUnit = 'seconds' | 'minutes' | 'hours' | 'days';
export const UNIT_SECONDS: Record<IntervalUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };
/** The API's methods, POST first (the form's default). */
export const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const satisfies readonly Extract<
  Target,
  { type: 'http' }
>['method'][];
export type Method = (typeof METHODS)[number];
/** The target kinds this form edits, the default first. */
export const TARGET_TYPES = ['http', 'container'] as const satisfies readonly Target['type'][];
export type TargetType = (typeof TARGET_TYPES)[number];

export interface HeaderRow {
  key: number;
  name: string;
  value: string;
}

export interface FormState {
  name: string;
  kind: ScheduleKind;
  cron: string;
  timezone: string;
  everyAmount: string;
  everyUnit: IntervalUnit;
  /** datetime-local value, in the viewer's zone */
  runAtLocal: string;
  targetType: TargetType;
  url: string;
  method: Method;
  headers: HeaderRow[];
  container: ContainerFields;
  payload: string;
  maxAttempts: string;
  initialDelaySeconds: string;
  maxDelaySeconds: string;
  timeoutSeconds: string;
  priority: Priority;
  misfirePolicy: MisfirePolicy;
  overlapPolicy: OverlapPolicy;
  jitterSeconds: string;
}

export interface JobShape {
  name: string;
  schedule: Schedule;
  target: Target;
  payload?: unknown;
  retry: { maxAttempts: number; initialDelaySeconds: number; maxDelaySeconds: number };
  timeoutSeconds: number;
  priority: FormState['priority'];
  misfirePolicy: FormState['misfirePolicy'];
  overlapPolicy: FormState['overlapPolicy'];
  jitterSeconds: number;
}

let headerKey = 1;
export function newHeaderRow(name = '', value = ''): HeaderRow {
  return { key: headerKey++, name, value };
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** A Date as a datetime-local value in the viewer's zone. */
export function toLocalInput(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function splitInterval(seconds: number): { amount: string; unit: IntervalUnit } {
  for (const unit of ['days', 'hours', 'minutes'] as const) {
    if (seconds % UNIT_SECONDS[unit] === 0) return { amount: String(seconds / UNIT_SECONDS[unit]), unit };
  }
  return { amount: String(seconds), unit: 'seconds' };
}

export function emptyForm(): FormState {
  return {
    name: '',
    kind: 'cron',
    cron: '0 7 * * *',
    timezone: viewerZone(),
    everyAmount: '5',
    everyUnit: 'minutes',
    runAtLocal: toLocalInput(new Date(Date.now() + 60 * 60 * 1000)),
    targetType: 'http',
    url: '',
    method: 'POST',
    headers: [],
    container: emptyContainerFields(),
    payload: '',
    maxAttempts: '5',
    initialDelaySeconds: '10',
    maxDelaySeconds: '3600',
    timeoutSeconds: '30',
    priority: 'normal',
    misfirePolicy: 'run_once',
    overlapPolicy: 'allow',
    jitterSeconds: '0',
  };
}

export function formFromJob(job: JobShape): FormState {
  const base = emptyForm();
  const s = job.schedule;
  const interval = s.type === 'interval' ? splitInterval(s.everySeconds) : null;
  return {
    ...base,
    name: job.name,
    kind: s.type,
    cron: s.type === 'cron' ? s.expression : base.cron,
    timezone: s.type === 'cron' ? s.timezone : base.timezone,
    everyAmount: interval?.amount ?? base.everyAmount,
    everyUnit: interval?.unit ?? base.everyUnit,
    runAtLocal: s.type === 'once' ? toLocalInput(new Date(s.runAt)) : base.runAtLocal,
    ...targetFieldsOf(job.target, base),
    payload: job.payload === null || job.payload === undefined ? '' : JSON.stringify(job.payload, null, 2),
    maxAttempts: String(job.retry.maxAttempts),
    initialDelaySeconds: String(job.retry.initialDelaySeconds),
    maxDelaySeconds: String(job.retry.maxDelaySeconds),
    timeoutSeconds: String(job.timeoutSeconds),
    priority: job.priority,
    misfirePolicy: job.misfirePolicy,
    overlapPolicy: job.overlapPolicy,
    jitterSeconds: String(job.jitterSeconds),
  };
}

function targetFieldsOf(t: Target, base: FormState): Partial<FormState> {
  switch (t.type) {
    case 'http':
      return {
        targetType: 'http',
        url: t.url,
        method: t.method,
        headers: Object.entries(t.headers).map(([n, v]) => newHeaderRow(n, v)),
      };
    case 'container':
      return { targetType: 'container', container: containerFieldsOf(t) };
    default:
      return { targetType: base.targetType };
  }
}

function targetOf(form: FormState) {
  if (form.targetType === 'container') return containerTargetOf(form.container);
  return {
    type: 'http' as const,
    url: form.url.trim(),
    method: form.method,
    headers: Object.fromEntries(
      form.headers.filter((h) => h.name.trim() || h.value).map((h) => [h.name.trim(), h.value]),
    ),
  };
}

/** An integer from a text box; NaN (which the server then rejects with a message) when it is not one. */
function int(text: string): number {
  return /^\s*-?\d+\s*$/.test(text) ? Number(text) : Number.NaN;
}

export type PayloadParse = { ok: true; value: unknown } | { ok: false; error: string };

export function parsePayload(text: string): PayloadParse {
  if (!text.trim()) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : 'not valid JSON' };
  }
}

export function scheduleOf(form: FormState): Schedule {
  switch (form.kind) {
    case 'cron':
      return { type: 'cron', expression: form.cron.trim(), timezone: form.timezone.trim() || 'UTC' };
    case 'interval':
      return { type: 'interval', everySeconds: int(form.everyAmount) * UNIT_SECONDS[form.everyUnit] };
    case 'once': {
      const d = new Date(form.runAtLocal);
      return { type: 'once', runAt: Number.isNaN(d.getTime()) ? form.runAtLocal : d.toISOString() };
    }
  }
}

/** The request body. JSON numbers that do not parse are sent as NaN → null, and the server names the field. */
export function bodyOf(form: FormState, payload: unknown) {
  return {
    name: form.name,
    schedule: scheduleOf(form),
    target: targetOf(form),
    retry: {
      maxAttempts: int(form.maxAttempts),
      initialDelaySeconds: int(form.initialDelaySeconds),
      maxDelaySeconds: int(form.maxDelaySeconds),
    },
    timeoutSeconds: int(form.timeoutSeconds),
    priority: form.priority,
    misfirePolicy: form.misfirePolicy,
    overlapPolicy: form.overlapPolicy,
    jitterSeconds: int(form.jitterSeconds),
    ...(payload === undefined ? {} : { payload }),
  };
}
