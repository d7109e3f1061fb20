'use client';
// The job form's sections below the schedule: the target, the payload, delivery (retries,
// timeout, priority) and the policies. Each gets the form state, a setter, and the errors
// at a path (the REST API's paths).
import type { ReactNode } from 'react';
import { Button } from '@/components/button';
import { Card } from '@/components/card';
import { Notice } from '@/components/empty';
import { SelectField, TextareaField, TextField } from '@/components/form-fields';
import type { FieldError } from '../../../_lib/errors';
import { ContainerEditor } from './container-editor';
import { HeadersEditor } from './headers-editor';
import { type FormState, METHODS, type Method, parsePayload, type TargetType } from './model';
import { MISFIRE_OPTIONS, OVERLAP_OPTIONS, PRIORITY_OPTIONS, RadioCards } from './options';

export interface SectionProps {
  form: FormState;
  set: (patch: Partial<FormState>) => void;
  at: (path: string) => string[];
}

export function Section({
  title,
  description,
  children,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card title={title} description={description}>
      {children}
    </Card>
  );
}

/** The notice at the top: what went wrong, and the errors no field below shows. */
export function ErrorSummary({ message, unshown }: { message: ReactNode; unshown?: FieldError[] | null }) {
  return (
    <Notice tone="error">
      {message}
      {unshown?.length ? (
        <ul className="mt-1 list-disc pl-5">
          {unshown.map((e) => (
            <li key={`${e.path}:${e.message}`}>
              {e.path ? <code className="font-mono">{e.path}</code> : null} {e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </Notice>
  );
}

const TARGET_DESCRIPTIONS: Record<TargetType, string> = {
  http: 'The HTTP endpoint each run calls. 2xx counts as success.',
  container: 'A container started for each run on a Docker Engine. Exit code 0 counts as success.',
};

export function TargetSection({ form, set, at, errors }: SectionProps & { errors: FieldError[] }) {
  return (
    <Section title="Target" description={TARGET_DESCRIPTIONS[form.targetType]}>
      <SelectField
        label="Kind"
        fieldClassName="mb-4 w-48"
        errors={at('target.type')}
        value={form.targetType}
        onChange={(e) => set({ targetType: e.target.value as TargetType })}
      >
        <option value="http">HTTP request</option>
        <option value="container">Container</option>
      </SelectField>
      {form.targetType === 'container' ? (
        <ContainerEditor
          fields={form.container}
          set={(patch) => set({ container: { ...form.container, ...patch } })}
          at={at}
          errors={errors}
        />
      ) : (
        <HttpEditor form={form} set={set} at={at} errors={errors} />
      )}
    </Section>
  );
}

function HttpEditor({ form, set, at, errors }: SectionProps & { errors: FieldError[] }) {
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap gap-3">
        <SelectField
          label="Method"
          errors={at('target.method')}
          fieldClassName="w-32"
          value={form.method}
          onChange={(e) => set({ method: e.target.value as Method })}
        >
          {METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </SelectField>
        <TextField
          label="URL"
          errors={at('target.url')}
          fieldClassName="min-w-[20rem] flex-1"
          type="url"
          value={form.url}
          onChange={(e) => set({ url: e.target.value })}
          placeholder="https://example.com/hooks/daily-report"
          className="font-mono"
          spellCheck={false}
        />
      </div>
      <HeadersEditor rows={form.headers} onChange={(headers) => set({ headers })} errors={errors} />
    </div>
  );
}

export function PayloadSection({ form, set, at }: SectionProps) {
  const payload = parsePayload(form.payload);
  return (
    <Section title="Payload" description="JSON sent as the request body (at most 256 KiB).">
      <TextareaField
        label="Body"
        optional
        hint={payload.ok ? (form.payload.trim() ? 'Valid JSON.' : 'Leave empty to send no body.') : undefined}
        errors={payload.ok ? at('payload') : [`Not valid JSON: ${payload.error}`]}
        rows={8}
        value={form.payload}
        onChange={(e) => set({ payload: e.target.value })}
        placeholder={'{\n  "report": "daily"\n}'}
        spellCheck={false}
      />
      {payload.ok && form.payload.trim() ? (
        <Button
          size="sm"
          variant="ghost"
          className="mt-1"
          onClick={() => set({ payload: JSON.stringify(payload.value, null, 2) })}
        >
          Format JSON
        </Button>
      ) : null}
    </Section>
  );
}

const NUMBERS: { key: keyof FormState; path: string; label: string; hint: string; suffix?: string }[] = [
  { key: 'maxAttempts', path: 'retry.maxAttempts', label: 'Max attempts', hint: '1–100, including the first' },
  {
    key: 'initialDelaySeconds',
    path: 'retry.initialDelaySeconds',
    label: 'Initial delay',
    hint: '0–86400',
    suffix: 's',
  },
  { key: 'maxDelaySeconds', path: 'retry.maxDelaySeconds', label: 'Max delay', hint: '0–604800', suffix: 's' },
  { key: 'timeoutSeconds', path: 'timeoutSeconds', label: 'Timeout per attempt', hint: '1–900', suffix: 's' },
  {
    key: 'jitterSeconds',
    path: 'jitterSeconds',
    label: 'Jitter',
    hint: '0–3600: each run starts up to this much after its time, to spread herds',
    suffix: 's',
  },
];

export function DeliverySection({ form, set, at }: SectionProps) {
  return (
    <Section
      title="Delivery"
      description="Timeouts, connection errors, 408, 429 and 5xx are retried; other failures end the run at once. The wait before each retry is random between 0 and min(max delay, initial delay × 2^(attempt−1))."
    >
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {NUMBERS.map((n) => (
          <TextField
            key={n.key}
            label={n.label}
            hint={n.hint}
            suffix={n.suffix}
            errors={at(n.path)}
            inputMode="numeric"
            value={form[n.key] as string}
            onChange={(e) => set({ [n.key]: e.target.value })}
          />
        ))}
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
  );
}

export function PoliciesSection({ form, set, at }: SectionProps) {
  return (
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
  );
}
