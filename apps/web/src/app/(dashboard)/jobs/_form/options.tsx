'use client';
// Radio groups with a one-line explanation per choice (priority, misfire and overlap policy).
import type { MisfirePolicy, OverlapPolicy, Priority } from '@belfry/client';
import type { ReactNode } from 'react';

export interface Option<T extends string> {
  value: T;
  label: string;
  help: ReactNode;
}

export const MISFIRE_OPTIONS: Option<MisfirePolicy>[] = [
  {
    value: 'run_once',
    label: 'Run once',
    help: 'After downtime, run one occurrence for everything missed, then carry on.',
  },
  { value: 'catch_up', label: 'Catch up', help: 'Run every missed occurrence, oldest first, then carry on.' },
  { value: 'skip', label: 'Skip', help: 'Record missed occurrences as skipped and wait for the next one.' },
];

export const OVERLAP_OPTIONS: Option<OverlapPolicy>[] = [
  { value: 'allow', label: 'Allow', help: 'Start on time even while the previous run is still going.' },
  { value: 'skip', label: 'Skip', help: 'While a run is still going, record the next occurrence as skipped instead.' },
];

export const PRIORITY_OPTIONS: Option<Priority>[] = [
  { value: 'high', label: 'High', help: 'Taken first when workers are busy.' },
  { value: 'normal', label: 'Normal', help: 'The default.' },
  { value: 'low', label: 'Low', help: 'Waits for high and normal work when workers are busy.' },
];

export function RadioCards<T extends string>({
  legend,
  name,
  value,
  options,
  onChange,
  errors,
}: {
  legend: ReactNode;
  name: string;
  value: T;
  options: Option<T>[];
  onChange: (value: T) => void;
  errors?: string[];
}) {
  return (
    <fieldset>
      <legend className="mb-1.5 text-sm font-medium text-slate-800">{legend}</legend>
      <div className="grid gap-2 md:grid-cols-3">
        {options.map((o) => (
          <label
            key={o.value}
            className={`flex cursor-pointer gap-2.5 rounded-md border p-2.5 text-sm has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-indigo-600 ${
              value === o.value ? 'border-indigo-500 bg-indigo-50/60' : 'border-slate-200 hover:border-slate-300'
            }`}
          >
            <input
              type="radio"
              name={name}
              value={o.value}
              checked={value === o.value}
              onChange={() => onChange(o.value)}
              className="mt-0.5 h-4 w-4 shrink-0 accent-indigo-600"
            />
            <span>
              <span className="block font-medium text-slate-900">{o.label}</span>
              <span className="block text-xs text-slate-600">{o.help}</span>
            </span>
          </label>
        ))}
      </div>
      {errors?.length ? <p className="mt-1 text-xs text-rose-700">{errors.join('; ')}</p> : null}
    </fieldset>
  );
}
