'use client';
// Labelled form controls: a Field (label, hint, errors, ids wired for assistive technology)
// around an Input, Select or Textarea, so forms say what a field is once and not how to
// connect its label, hint and errors each time.
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
import { Button } from './button';
import { Field, Input, Select, Textarea } from './field';

interface Chrome {
  label: ReactNode;
  hint?: ReactNode;
  /** messages shown under the control; any makes it aria-invalid */
  errors?: string[] | undefined;
  optional?: boolean;
  /** classes of the field around the control (width in a row of fields) */
  fieldClassName?: string;
}

export function TextField({
  label,
  hint,
  errors,
  optional,
  fieldClassName,
  suffix,
  className = '',
  ...input
}: Chrome &
  InputHTMLAttributes<HTMLInputElement> & { /** a unit shown inside the input, e.g. "s" */ suffix?: string }) {
  return (
    <Field label={label} hint={hint} errors={errors} optional={optional} className={fieldClassName}>
      {({ id, describedBy, invalid }) => {
        const control = (
          <Input
            id={id}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            className={`${suffix ? 'pr-8' : ''} ${className}`}
            {...input}
          />
        );
        if (!suffix) return control;
        return (
          <div className="relative">
            {control}
            <span className="pointer-events-none absolute inset-y-0 right-2.5 flex items-center text-xs text-slate-400">
              {suffix}
            </span>
          </div>
        );
      }}
    </Field>
  );
}

export function SelectField({
  label,
  hint,
  errors,
  optional,
  fieldClassName,
  children,
  ...select
}: Chrome & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field label={label} hint={hint} errors={errors} optional={optional} className={fieldClassName}>
      {({ id, describedBy, invalid }) => (
        <Select id={id} aria-describedby={describedBy} aria-invalid={invalid} {...select}>
          {children}
        </Select>
      )}
    </Field>
  );
}

export function TextareaField({
  label,
  hint,
  errors,
  optional,
  fieldClassName,
  ...textarea
}: Chrome & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Field label={label} hint={hint} errors={errors} optional={optional} className={fieldClassName}>
      {({ id, describedBy, invalid }) => (
        <Textarea id={id} aria-describedby={describedBy} aria-invalid={invalid} {...textarea} />
      )}
    </Field>
  );
}

/** A select above a table: a small visible label, or one for screen readers only. */
export function FilterSelect({
  id,
  label,
  hideLabel,
  children,
  ...select
}: SelectHTMLAttributes<HTMLSelectElement> & { id: string; label: string; hideLabel?: boolean }) {
  return (
    <div>
      <label htmlFor={id} className={hideLabel ? 'sr-only' : 'mb-1 block text-xs font-medium text-slate-500'}>
        {label}
      </label>
      <Select id={id} {...select}>
        {children}
      </Select>
    </div>
  );
}

/** The buttons under a form in a dialog: Cancel, and the submit button that shows it is busy. */
export function FormActions({
  onCancel,
  busy,
  submitLabel,
  className = 'pt-1',
}: {
  onCancel: () => void;
  busy: boolean;
  submitLabel: string;
  className?: string;
}) {
  return (
    <div className={`flex justify-end gap-2 ${className}`}>
      <Button onClick={onCancel}>Cancel</Button>
      <Button type="submit" variant="primary" busy={busy}>
        {submitLabel}
      </Button>
    </div>
  );
}
