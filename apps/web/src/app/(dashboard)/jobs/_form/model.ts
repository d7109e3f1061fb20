// The job form's state, and its conversion to and from the API's job shape.
import type { MisfirePolicy, OverlapPolicy, Priority, Target } from '@belfry/client';
import type { Schedule } from '../../../_lib/schedule';
import { viewerZone } from '../../../_lib/time';
import { type AlertRules, DEFAULT_RULES, jobAlertsOf, type RulesDraft, rulesDraft } from '../../alerts/rules';
import { TARGET_UIS, targetUi } from '../_targets';

export type ScheduleKind = Schedule['type'];
export type IntervalUnit = 'seconds' | 'minutes' | 'hours' | 'days';
export const UNIT_SECONDS: Record<IntervalUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };

export interface HeaderRow {
  key: number;
  name: string;
  value: string;
}

/** A job's own `alerts` as the API takes them (docs/alerts.md): every key optional. */
export interface JobAlerts extends Partial<AlertRules> {
  channels?: string[];
}

export interface AlertsDraft {
  /** changed in this form: only then is `alerts` sent, so a save elsewhere keeps the job's as they are */
  touched: boolean;
  /** settings of the job's own, or the tenant policy */
  own: boolean;
  rules: RulesDraft;
  /** null = the tenant policy's channels */
  channels: string[] | null;
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
  /** the target kind chosen in the form's kind selector */
  targetType: string;
  /** each kind's draft, so switching kinds back and forth keeps what was typed */
  targets: Record<string, object>;
  headers: HeaderRow[];
  payload: string;
  maxAttempts: string;
  initialDelaySeconds: string;
  maxDelaySeconds: string;
  timeoutSeconds: string;
  priority: Priority;
  misfirePolicy: MisfirePolicy;
  overlapPolicy: OverlapPolicy;
  jitterSeconds: string;
  alerts: AlertsDraft;
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
  alerts?: JobAlerts;
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
    targets: Object.fromEntries(TARGET_UIS.map((k) => [k.type, k.empty()])),
    headers: [],
    payload: '',
    maxAttempts: '5',
    initialDelaySeconds: '10',
    maxDelaySeconds: '3600',
    timeoutSeconds: '30',
    priority: 'normal',
    misfirePolicy: 'run_once',
    overlapPolicy: 'allow',
    jitterSeconds: '0',
    alerts: { touched: false, own: false, rules: rulesDraft(DEFAULT_RULES), channels: null },
  };
}

/** `effective`: the rules in effect for the job (its own over the tenant policy), when known. */
export function formFromJob(job: JobShape, effective?: AlertRules): FormState {
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
    targetType: job.target.type,
    targets: {
      ...base.targets,
      ...(targetUi(job.target.type) ? { [job.target.type]: targetUi(job.target.type)!.fromTarget(job.target) } : {}),
    },
    headers: Object.entries('headers' in job.target ? (job.target.headers ?? {}) : {}).map(([n, v]) =>
      newHeaderRow(n, v),
    ),
    payload: job.payload === null || job.payload === undefined ? '' : JSON.stringify(job.payload, null, 2),
    maxAttempts: String(job.retry.maxAttempts),
    initialDelaySeconds: String(job.retry.initialDelaySeconds),
    maxDelaySeconds: String(job.retry.maxDelaySeconds),
    timeoutSeconds: String(job.timeoutSeconds),
    priority: job.priority,
    misfirePolicy: job.misfirePolicy,
    overlapPolicy: job.overlapPolicy,
    jitterSeconds: String(job.jitterSeconds),
    alerts: {
      touched: false,
      own: Boolean(job.alerts),
      rules: rulesDraft(effective ?? { ...DEFAULT_RULES, ...job.alerts }),
      channels: job.alerts?.channels ?? null,
    },
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

/** The chosen kind's target, with the header rows when the kind takes headers. */
export function targetOf(form: FormState) {
  const ui = targetUi(form.targetType) ?? TARGET_UIS[0]!;
  const headers = Object.fromEntries(
    form.headers.filter((h) => h.name.trim() || h.value).map((h) => [h.name.trim(), h.value]),
  );
  return ui.toTarget(form.targets[ui.type] ?? ui.empty(), ui.headers ? headers : {});
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
    ...(form.alerts.touched ? { alerts: jobAlertsOf(form.alerts) } : {}),
  };
}
