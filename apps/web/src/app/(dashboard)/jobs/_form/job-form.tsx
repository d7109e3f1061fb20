'use client';
// Create or edit a job. Every field shows its own errors: the form's quick checks first,
// then the server's validation errors by their path (the REST API's paths), so a message
// like "schedule.expression: ..." lands under the cron field.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { type ReactNode, useState } from 'react';
import { Button, ButtonLink } from '@/components/button';
import { Card } from '@/components/card';
import { Notice } from '@/components/empty';
import { Field, Input, Select, Textarea } from '@/components/field';
import { useToast } from '@/components/toast';
import { errorMessage, errorsAt, type FieldError, fieldErrors } from '../../../_lib/errors';
import { useTRPC } from '../../../_lib/trpc';
import { clientChecks } from './client-checks';
import { HeadersEditor } from './headers-editor';
import {
  bodyOf,
  emptyForm,
  type FormState,
  formFromJob,
  type JobShape,
  METHODS,
  type Method,
  parsePayload,
} from './model';
import { MISFIRE_OPTIONS, OVERLAP_OPTIONS, PRIORITY_OPTIONS, RadioCards } from './options';
import { ScheduleEditor } from './schedule-editor';

// Paths some field on this form displays; errors elsewhere go in the summary at the top.
const SHOWN = [
  'name',
  'schedule.expression',
  'schedule.timezone',
  'schedule.everySeconds',
  'schedule.runAt',
  'target.url',
  'target.method',
  'target.headers',
  'payload',
  'retry.maxAttempts',
  'retry.initialDelaySeconds',
  'retry.maxDelaySeconds',
  'timeoutSeconds',
  'priority',
  'misfirePolicy',
  'overlapPolicy',
];

function unshown(errors: FieldError[]): FieldError[] {
  return errors.filter((e) => !SHOWN.some((p) => e.path === p || e.path.startsWith(`${p}.`)));
}

export function JobForm({ job }: { job?: JobShape & { id: string } }) {
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<FormState>(() => (job ? formFromJob(job) : emptyForm()));
  const [checks, setChecks] = useState<FieldError[]>([]);
  const set = (patch: Partial<FormState>) => setForm((f) => ({ ...f, ...patch }));

  const done = async (id: string, verb: string) => {
    await queryClient.invalidateQueries({ queryKey: trpc.jobs.pathKey() });
    toast(`Job ${verb}`);
    router.push(`/jobs/${id}`);
  };
  const create = useMutation(trpc.jobs.create.mutationOptions({ onSuccess: (j) => done(j.id, 'created') }));
  const update = useMutation(trpc.jobs.update.mutationOptions({ onSuccess: (j) => done(j.id, 'saved') }));
  const mutation = job ? update : create;

  const server = fieldErrors(mutation.error);
  const errors = checks.length ? checks : server;
  const at = (path: string) => errorsAt(errors, path);
  const payloadState = parsePayload(form.payload);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const found = clientChecks(form);
    setChecks(found);
    if (found.length) {
      document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    const payload = payloadState.ok ? payloadState.value : undefined;
    if (job) update.mutate({ id: job.id, ...bodyOf(form, payload), payload: payload === undefined ? null : payload });
    else create.mutate(bodyOf(form, payload));
  };

  const summary = mutation.error && !checks.length ? (server.length ? unshown(server) : null) : null;

  return (
    <form onSubmit={submit} noValidate className="space-y-6">
      {mutation.error && !checks.length ? (
        <Notice tone="error">
          {server.length ? 'Some fields need attention; see the messages beside them.' : errorMessage(mutation.error)}
          {summary?.length ? (
            <ul className="mt-1 list-disc pl-5">
              {summary.map((e) => (
                <li key={`${e.path}:${e.message}`}>
                  {e.path ? <code className="font-mono">{e.path}</code> : null} {e.message}
                </li>
              ))}
            </ul>
          ) : null}
        </Notice>
      ) : null}
      {checks.length ? <Notice tone="error">Some fields need attention; see the messages beside them.</Notice> : null}

      <Section title="Basics">
        <Field
          label="Name"
          hint="Shown in lists and logs; 1 to 200 characters. Names need not be unique."
          errors={at('name')}
        >
          {({ id, describedBy, invalid }) => (
            <Input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              value={form.name}
              onChange={(e) => set({ name: e.target.value })}
              placeholder="daily-report"
              className="max-w-md"
              autoFocus={!job}
            />
          )}
        </Field>
      </Section>

      <Section title="Schedule" description="When the job runs.">
        <ScheduleEditor form={form} set={set} errors={errors} />
      </Section>

      <Section title="Target" description="The HTTP endpoint each run calls. 2xx counts as success.">
        <div className="space-y-4">
          <div className="flex flex-wrap gap-3">
            <Field label="Method" errors={at('target.method')} className="w-32">
              {({ id }) => (
                <Select id={id} value={form.method} onChange={(e) => set({ method: e.target.value as Method })}>
                  {METHODS.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </Select>
              )}
            </Field>
            <Field label="URL" errors={at('target.url')} className="min-w-[20rem] flex-1">
              {({ id, describedBy, invalid }) => (
                <Input
                  id={id}
                  type="url"
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  value={form.url}
                  onChange={(e) => set({ url: e.target.value })}
                  placeholder="https://example.com/hooks/daily-report"
                  className="font-mono"
                  spellCheck={false}
                />
              )}
            </Field>
          </div>
          <HeadersEditor rows={form.headers} onChange={(headers) => set({ headers })} errors={errors} />
        </div>
      </Section>

      <Section title="Payload" description="JSON sent as the request body (at most 256 KiB).">
        <Field
          label="Body"
          optional
          hint={payloadState.ok ? (form.payload.trim() ? 'Valid JSON.' : 'Leave empty to send no body.') : undefined}
          errors={payloadState.ok ? at('payload') : [`Not valid JSON: ${payloadState.error}`]}
        >
          {({ id, describedBy, invalid }) => (
            <Textarea
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              rows={8}
              value={form.payload}
              onChange={(e) => set({ payload: e.target.value })}
              placeholder={'{\n  "report": "daily"\n}'}
              spellCheck={false}
            />
          )}
        </Field>
        {payloadState.ok && form.payload.trim() ? (
          <Button
            size="sm"
            variant="ghost"
            className="mt-1"
            onClick={() => set({ payload: JSON.stringify(payloadState.value, null, 2) })}
          >
            Format JSON
          </Button>
        ) : null}
      </Section>

      <Section
        title="Delivery"
        description="Timeouts, connection errors, 408, 429 and 5xx are retried; other failures end the run at once. The wait before each retry is random between 0 and min(max delay, initial delay × 2^(attempt−1))."
      >
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <NumberField
            label="Max attempts"
            hint="1–100, including the first"
            value={form.maxAttempts}
            onChange={(v) => set({ maxAttempts: v })}
            errors={at('retry.maxAttempts')}
          />
          <NumberField
            label="Initial delay"
            suffix="s"
            hint="0–86400"
            value={form.initialDelaySeconds}
            onChange={(v) => set({ initialDelaySeconds: v })}
            errors={at('retry.initialDelaySeconds')}
          />
          <NumberField
            label="Max delay"
            suffix="s"
            hint="0–604800"
            value={form.maxDelaySeconds}
            onChange={(v) => set({ maxDelaySeconds: v })}
            errors={at('retry.maxDelaySeconds')}
          />
          <NumberField
            label="Timeout per attempt"
            suffix="s"
            hint="1–900"
            value={form.timeoutSeconds}
            onChange={(v) => set({ timeoutSeconds: v })}
            errors={at('timeoutSeconds')}
          />
        </div>
        <div className="mt-5">
          <RadioCards
            legend="Priority"
            name="priority"
            value={form.priority}
            options={PRIORITY_OPTIONS}
            onChange={(priority) => set({ priority })}
            errors={at('priority')}
          />
        </div>
      </Section>

      <Section title="Policies">
        <div className="space-y-5">
          <RadioCards
            legend="Missed runs (misfire policy): occurrences missed while nothing could run them"
            name="misfire"
            value={form.misfirePolicy}
            options={MISFIRE_OPTIONS}
            onChange={(misfirePolicy) => set({ misfirePolicy })}
            errors={at('misfirePolicy')}
          />
          <RadioCards
            legend="Overlapping runs (overlap policy)"
            name="overlap"
            value={form.overlapPolicy}
            options={OVERLAP_OPTIONS}
            onChange={(overlapPolicy) => set({ overlapPolicy })}
            errors={at('overlapPolicy')}
          />
        </div>
      </Section>

      <div className="sticky bottom-0 -mx-6 flex justify-end gap-2 border-t border-slate-200 bg-slate-50/95 px-6 py-3 backdrop-blur lg:-mx-8 lg:px-8">
        <ButtonLink href={job ? `/jobs/${job.id}` : '/jobs'}>Cancel</ButtonLink>
        <Button type="submit" variant="primary" busy={mutation.isPending || mutation.isSuccess}>
          {job ? 'Save changes' : 'Create job'}
        </Button>
      </div>
    </form>
  );
}

function Section({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <Card title={title} description={description}>
      {children}
    </Card>
  );
}

function NumberField({
  label,
  hint,
  suffix,
  value,
  onChange,
  errors,
}: {
  label: string;
  hint?: string;
  suffix?: string;
  value: string;
  onChange: (v: string) => void;
  errors: string[];
}) {
  return (
    <Field label={label} hint={hint} errors={errors}>
      {({ id, describedBy, invalid }) => (
        <div className="relative">
          <Input
            id={id}
            inputMode="numeric"
            aria-describedby={describedBy}
            aria-invalid={invalid}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            className={suffix ? 'pr-8' : ''}
          />
          {suffix ? (
            <span className="pointer-events-none absolute inset-y-0 right-2.5 flex items-center text-xs text-slate-400">
              {suffix}
            </span>
          ) : null}
        </div>
      )}
    </Field>
  );
}
