'use client';
// Create or edit a job. Every field shows its own errors: the form's quick checks first,
// then the server's validation errors by their path (the REST API's paths), so a message
// like "schedule.expression: ..." lands under the cron field.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Button, ButtonLink } from '@/components/button';
import { Notice } from '@/components/empty';
import { TextField } from '@/components/form-fields';
import { useToast } from '@/components/toast';
import { errorMessage, errorsAt, type FieldError, fieldErrors } from '../../../_lib/errors';
import { useTRPC } from '../../../_lib/trpc';
import { clientChecks } from './client-checks';
import {
  DeliverySection,
  ErrorSummary,
  PayloadSection,
  PoliciesSection,
  Section,
  TargetSection,
} from './job-form-sections';
import { bodyOf, emptyForm, type FormState, formFromJob, type JobShape, parsePayload } from './model';
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
  'target.image',
  'target.command',
  'target.entrypoint',
  'target.env',
  'target.workingDir',
  'target.user',
  'target.memoryMb',
  'target.cpus',
  'target.network',
  'target.pullPolicy',
  'payload',
  'retry.maxAttempts',
  'retry.initialDelaySeconds',
  'retry.maxDelaySeconds',
  'timeoutSeconds',
  'priority',
  'misfirePolicy',
  'overlapPolicy',
  'jitterSeconds',
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
        <ErrorSummary
          message={
            server.length ? 'Some fields need attention; see the messages beside them.' : errorMessage(mutation.error)
          }
          unshown={summary}
        />
      ) : null}
      {checks.length ? <Notice tone="error">Some fields need attention; see the messages beside them.</Notice> : null}

      <Section title="Basics">
        <TextField
          label="Name"
          hint="Shown in lists and logs; 1 to 200 characters. Names need not be unique."
          errors={at('name')}
          value={form.name}
          onChange={(e) => set({ name: e.target.value })}
          placeholder="daily-report"
          className="max-w-md"
          autoFocus={!job}
        />
      </Section>

      <Section title="Schedule" description="When the job runs.">
        <ScheduleEditor form={form} set={set} errors={errors} />
      </Section>
      <TargetSection form={form} set={set} at={at} errors={errors} />
      <PayloadSection form={form} set={set} at={at} />
      <DeliverySection form={form} set={set} at={at} />
      <PoliciesSection form={form} set={set} at={at} />

      <div className="sticky bottom-0 -mx-6 flex justify-end gap-2 border-t border-slate-200 bg-slate-50/95 px-6 py-3 backdrop-blur lg:-mx-8 lg:px-8">
        <ButtonLink href={job ? `/jobs/${job.id}` : '/jobs'}>Cancel</ButtonLink>
        <Button type="submit" variant="primary" busy={mutation.isPending || mutation.isSuccess}>
          {job ? 'Save changes' : 'Create job'}
        </Button>
      </div>
    </form>
  );
}
