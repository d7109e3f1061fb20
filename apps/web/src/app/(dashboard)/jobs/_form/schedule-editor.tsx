'use client';
// The schedule part of the job form: once / cron / interval tabs; the cron expression in
// words as you type, and the next five fire times from the server's preview (the
// scheduler's own maths), each in the job's zone and yours, with daylight-saving notes.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Field, Input, Select } from '@/components/field';
import { TextField } from '@/components/form-fields';
import { Spinner } from '@/components/spinner';
import { Tabs } from '@/components/tabs';
import { errorMessage, errorsAt, type FieldError, fieldErrors } from '../../../_lib/errors';
import { cronInWords, intervalInWords } from '../../../_lib/schedule';
import { formatInZone, viewerZone } from '../../../_lib/time';
import { useTRPC } from '../../../_lib/trpc';
import { type FormState, type IntervalUnit, UNIT_SECONDS } from './model';

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return debounced;
}

function timeZones(): string[] {
  const supported =
    (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return supported.includes('UTC') ? supported : ['UTC', ...supported];
}

const EXAMPLES: Array<[string, string]> = [
  ['*/5 * * * *', 'every 5 minutes'],
  ['0 7 * * 1-5', 'weekdays at 07:00'],
  ['0 0 1 * *', 'monthly, on the 1st'],
  ['*/10 * * * * *', 'every 10 seconds (6 fields)'],
];

export function ScheduleEditor({
  form,
  set,
  errors,
}: {
  form: FormState;
  set: (patch: Partial<FormState>) => void;
  errors: FieldError[];
}) {
  const trpc = useTRPC();
  const zones = useMemo(timeZones, []);
  const words = form.kind === 'cron' ? cronInWords(form.cron) : null;
  const cron = useDebounced({ expression: form.cron.trim(), timezone: form.timezone.trim() || 'UTC' }, 300);
  const everySeconds = Number(form.everyAmount) * UNIT_SECONDS[form.everyUnit];
  const debouncedEvery = useDebounced(everySeconds, 300);
  const previewInput =
    form.kind === 'cron'
      ? { type: 'cron' as const, expression: cron.expression, timezone: cron.timezone, count: 5 }
      : { type: 'interval' as const, everySeconds: debouncedEvery, count: 5 };
  const previewEnabled =
    (form.kind === 'cron' && cron.expression.length > 0) ||
    (form.kind === 'interval' && Number.isInteger(debouncedEvery) && debouncedEvery >= 1);
  const preview = useQuery({
    ...trpc.schedule.preview.queryOptions(previewInput),
    enabled: previewEnabled,
    retry: false,
    staleTime: 10_000,
  });
  const previewErrors = fieldErrors(preview.error);
  const jobZone = form.kind === 'cron' ? form.timezone || 'UTC' : 'UTC';
  const mine = viewerZone();

  return (
    <div className="space-y-4">
      <Tabs
        label="Schedule kind"
        value={form.kind}
        onChange={(kind) => set({ kind })}
        options={[
          { value: 'cron', label: 'Cron' },
          { value: 'interval', label: 'Interval' },
          { value: 'once', label: 'Once' },
        ]}
      />

      {form.kind === 'cron' ? (
        <>
          <div className="grid gap-4 md:grid-cols-[1fr_16rem]">
            <TextField
              label="Cron expression"
              hint={
                <>
                  minute hour day-of-month month day-of-week, or 6 fields with seconds first. Try{' '}
                  {EXAMPLES.map(([expr, what], i) => (
                    <span key={expr}>
                      <button
                        type="button"
                        className="font-mono text-indigo-600 hover:underline"
                        onClick={() => set({ cron: expr })}
                        title={what}
                      >
                        {expr}
                      </button>
                      {i < EXAMPLES.length - 1 ? ', ' : '.'}
                    </span>
                  ))}
                </>
              }
              errors={errorsAt(errors, 'schedule.expression')}
              className="font-mono"
              value={form.cron}
              onChange={(e) => set({ cron: e.target.value })}
              spellCheck={false}
              autoComplete="off"
            />
            <TextField
              label="Time zone"
              hint="The cron fields are wall-clock times here."
              errors={errorsAt(errors, 'schedule.timezone')}
              list="belfry-time-zones"
              value={form.timezone}
              onChange={(e) => set({ timezone: e.target.value })}
              spellCheck={false}
            />
            <datalist id="belfry-time-zones">
              {zones.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          </div>
          {words?.ok ? (
            <p className="rounded-md bg-indigo-50 px-3 py-2 text-sm text-indigo-900" aria-live="polite">
              <strong className="font-medium">{words.text}</strong>
              <span className="text-indigo-700"> ({form.timezone || 'UTC'})</span>
            </p>
          ) : !form.cron.trim() ? (
            <p className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-600">{words?.text}</p>
          ) : preview.isSuccess && !preview.isPlaceholderData ? (
            <p className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-600">
              No description in words for this expression; the runs below are exact.
            </p>
          ) : null}
        </>
      ) : null}

      {form.kind === 'interval' ? (
        <Field
          label="Run every"
          hint="Intervals are real elapsed time, unaffected by time zones and daylight saving; they count from when the schedule was set."
          errors={errorsAt(errors, 'schedule.everySeconds')}
        >
          {({ id, describedBy, invalid }) => (
            <div className="flex max-w-sm gap-2">
              <Input
                id={id}
                aria-describedby={describedBy}
                aria-invalid={invalid}
                inputMode="numeric"
                value={form.everyAmount}
                onChange={(e) => set({ everyAmount: e.target.value })}
                className="w-28"
              />
              <Select
                aria-label="Unit"
                value={form.everyUnit}
                onChange={(e) => set({ everyUnit: e.target.value as IntervalUnit })}
                className="w-36"
              >
                <option value="seconds">seconds</option>
                <option value="minutes">minutes</option>
                <option value="hours">hours</option>
                <option value="days">days</option>
              </Select>
            </div>
          )}
        </Field>
      ) : null}

      {form.kind === 'once' ? (
        <TextField
          label="Run at"
          hint={`In your time zone (${mine}). A time in the past runs as soon as the job is saved.`}
          errors={errorsAt(errors, 'schedule.runAt')}
          type="datetime-local"
          step={1}
          value={form.runAtLocal}
          onChange={(e) => set({ runAtLocal: e.target.value })}
          className="max-w-xs"
        />
      ) : null}

      {form.kind !== 'once' ? (
        <div>
          <div className="mb-1.5 flex items-center gap-2 text-sm font-medium text-slate-800">
            Next 5 runs
            {preview.isFetching ? <Spinner size="sm" /> : null}
          </div>
          {!previewEnabled ? (
            <p className="text-sm text-slate-500">Enter a schedule to see when it runs.</p>
          ) : preview.isError ? (
            <p className="text-sm text-rose-700" aria-live="polite">
              {errorsAt(errors, 'schedule.expression').includes(previewErrors[0]?.message ?? '')
                ? 'Fix the expression to see when it runs.'
                : (previewErrors[0]?.message ?? errorMessage(preview.error))}
            </p>
          ) : preview.data ? (
            <ol className="divide-y divide-slate-100 rounded-md border border-slate-200 text-sm">
              {preview.data.times.map((t) => (
                <li key={t.at} className="px-3 py-1.5">
                  <div className="flex flex-wrap justify-between gap-x-4 tabular-nums">
                    <span className="font-medium text-slate-900">{formatInZone(t.at, jobZone)}</span>
                    {jobZone !== mine ? (
                      <span className="text-slate-500">{formatInZone(t.at, mine)} (yours)</span>
                    ) : null}
                  </div>
                  {t.dstNote ? (
                    <p className="mt-1 rounded bg-amber-50 px-2 py-1 text-xs text-amber-900" role="note">
                      <strong className="font-semibold">Daylight saving:</strong> {t.dstNote}
                    </p>
                  ) : null}
                </li>
              ))}
            </ol>
          ) : null}
          {form.kind === 'interval' && Number.isInteger(everySeconds) && everySeconds > 0 ? (
            <p className="mt-1 text-xs text-slate-500">{intervalInWords(everySeconds)}, counted from when you save.</p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
