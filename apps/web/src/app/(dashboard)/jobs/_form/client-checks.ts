// Checks the form can make before asking the server (which checks everything again and
// whose messages land in the same places): empty required fields, numbers, JSON.
import type { FieldError } from '../../../_lib/errors';
import { type FormState, parsePayload } from './model';

function wholeNumber(text: string): boolean {
  return /^\s*\d+\s*$/.test(text);
}

export function clientChecks(form: FormState): FieldError[] {
  const errors: FieldError[] = [];
  if (!form.name.trim()) errors.push({ path: 'name', message: 'is required' });
  if (form.kind === 'cron' && !form.cron.trim()) errors.push({ path: 'schedule.expression', message: 'is required' });
  if (form.kind === 'interval' && (!wholeNumber(form.everyAmount) || Number(form.everyAmount) < 1)) {
    errors.push({ path: 'schedule.everySeconds', message: 'must be a whole number, at least 1' });
  }
  if (form.kind === 'once' && Number.isNaN(new Date(form.runAtLocal).getTime())) {
    errors.push({ path: 'schedule.runAt', message: 'pick a date and time' });
  }
  if (form.targetType === 'http') {
    if (!form.url.trim()) errors.push({ path: 'target.url', message: 'is required' });
    for (const h of form.headers) {
      if (!h.name.trim() && h.value) errors.push({ path: 'target.headers', message: 'every header needs a name' });
    }
  } else if (form.targetType === 'container') {
    if (!form.container.image.trim()) errors.push({ path: 'target.image', message: 'is required' });
    for (const v of form.container.env) {
      if (!v.name.trim() && v.value) errors.push({ path: 'target.env', message: 'every variable needs a name' });
    }
  }
  const payload = parsePayload(form.payload);
  if (!payload.ok) errors.push({ path: 'payload', message: `is not valid JSON: ${payload.error}` });
  const numbers: Array<[keyof FormState, string]> = [
    ['maxAttempts', 'retry.maxAttempts'],
    ['initialDelaySeconds', 'retry.initialDelaySeconds'],
    ['maxDelaySeconds', 'retry.maxDelaySeconds'],
    ['timeoutSeconds', 'timeoutSeconds'],
  ];
  for (const [key, path] of numbers) {
    if (!wholeNumber(String(form[key]))) errors.push({ path, message: 'must be a whole number' });
  }
  return errors;
}
