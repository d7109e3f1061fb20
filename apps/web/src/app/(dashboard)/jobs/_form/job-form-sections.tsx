'use client';
// The job form's sections below the schedule: the target, the payload, delivery (retries,
// timeout, priority) and the policies. Each gets the form state, a setter, and the errors
// at a path (the REST API's paths).
import type { ReactNode } from 'react';
import { Button } from '@/components/button';
import { Card } from '@/components/card';
import { Notice } from '@/components/empty';
import { TextareaField, TextField } from '@/components/form-fields';
import type { FieldError } from '../../../_lib/errors';
import { HeadersEditor } from './headers-editor';
import { TARGET_UIS, targetUi } from '../_targets';
import { type FormState, parsePayload } from './model';
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

export function TargetSection({ form, set, at, errors }: SectionProps & { errors: FieldError[] }) {
  const ui = targetUi(form.targetType) ?? TARGET_UIS[0]!;
  const draft = form.targets[ui.type] ?? ui.empty();
  const setDraft = (patch: object) => set({ targets: { ...form.targets, [ui.type]: { ...draft, ...patch } } });
  return (
    <Section title="Target" description="Where each run is delivered.">
      <div className="space-y-4">
        <RadioCards
          legend="Kind"
          name="target-kind"
          value={ui.type}
          options={TARGET_UIS.map((k) => ({ value: k.type, label: k.label, help: k.description }))}
          onChange={(targetType) => set({ targetType })}
          errors={at('target.type')}
        />
        <ui.Editor draft={draft} set={setDraft} at={at} errors={errors} />
        {ui.headers ? (
          <HeadersEditor rows={form.headers} onChange={(headers) => set({ headers })} errors={errors} />
        ) : null}
      </div>
    </Section>
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
