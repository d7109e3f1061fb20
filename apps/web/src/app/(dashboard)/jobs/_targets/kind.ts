// What the dashboard knows about one kind of target: how its editor looks (a small component
// per kind, chosen by the kind selector of the job form), how a draft becomes the API's target
// and back, what the form can check before asking the server, and how a stored target reads
// in lists and on the job page. Adding a kind is one file beside this one and one line in
// index.ts.
import type { Target, TargetInput } from '@belfry/client';
import type { ChangeEvent, ComponentType, ReactNode } from 'react';
import type { FieldError } from '../../../_lib/errors';

export interface TargetEditorProps<Draft> {
  draft: Draft;
  set: (patch: Partial<Draft>) => void;
  /** the errors at a path (the REST API's, e.g. `target.url`) */
  at: (path: string) => string[];
  /** every error of the form, for editors of maps whose entries carry their own (`target.env.NAME`) */
  errors: FieldError[];
}

export interface TargetKindUi<Draft extends object = object> {
  type: string;
  /** what the selector says: "HTTP", "RabbitMQ" */
  label: string;
  /** one sentence under the selector: what a run does with this kind */
  description: string;
  /** whether the kind takes headers (the shared headers editor is shown) */
  headers: boolean;
  empty(): Draft;
  /** a stored target (secrets come masked as ***) as a draft */
  fromTarget(target: Target): Draft;
  /** the request body's target */
  toTarget(draft: Draft, headers: Record<string, string>): TargetInput;
  /** the form's own quick checks, at the API's paths */
  check(draft: Draft): FieldError[];
  /** the error paths (below `target.`) the editor shows beside a field */
  fields: string[];
  Editor: ComponentType<TargetEditorProps<Draft>>;
  /** one line for lists */
  summary(target: Target): string;
  /** rows for the job page */
  rows(target: Target): Array<[string, ReactNode]>;
}

type TextKey<Draft> = { [K in keyof Draft]: Draft[K] extends string ? K : never }[keyof Draft] & string;

/**
 * Binds form fields to the draft's text properties: `{...field('image')}` gives a field its
 * value, its change handler and the API's errors at `target.image`.
 */
export function fieldBinder<Draft>({ draft, set, at }: TargetEditorProps<Draft>) {
  return (key: TextKey<Draft>) => ({
    errors: at(`target.${key}`),
    value: draft[key] as string,
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) =>
      set({ [key]: e.target.value } as Partial<Draft>),
  });
}

/** Declares a kind's UI; only infers its draft type. */
export function defineTargetUi<Draft extends object>(ui: TargetKindUi<Draft>): TargetKindUi<Draft> {
  return ui;
}

/** The password of a broker URL is stored, never shown: it comes back as `***`, which keeps it. */
export function hasMaskedPassword(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/@:]*:\*\*\*@/i.test(url);
}
