'use client';
// Name/value rows of a target map — request headers, or a container's env; server errors for
// one entry (target.<field>.<name>) show on its row.
import type { ReactNode } from 'react';
import { Button } from '@/components/button';
import { Input } from '@/components/field';
import { errorsAt, type FieldError } from '../../../_lib/errors';
import { type HeaderRow, newHeaderRow } from './model';

const HEADERS_DESCRIPTION = (
  <>
    Sent with every delivery. Belfry adds <code className="font-mono">webhook-id</code>,{' '}
    <code className="font-mono">webhook-timestamp</code>, <code className="font-mono">webhook-signature</code> and{' '}
    <code className="font-mono">idempotency-key</code> itself. Values of credential headers (
    <code className="font-mono">authorization</code>, <code className="font-mono">cookie</code>, names with{' '}
    <code className="font-mono">token</code>, <code className="font-mono">secret</code>,{' '}
    <code className="font-mono">key</code> or <code className="font-mono">password</code>) are write-only: they are
    stored encrypted and read back as <code className="font-mono">***</code>; leave{' '}
    <code className="font-mono">***</code> to keep the stored value.
  </>
);

export function HeadersEditor({
  rows,
  onChange,
  errors,
  field = 'headers',
  noun = 'header',
  legend = 'Headers',
  description = HEADERS_DESCRIPTION,
  placeholders = ['x-team', 'billing'],
}: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  errors: FieldError[];
  /** the target field these rows are (error paths target.<field>...) */
  field?: string;
  noun?: string;
  legend?: string;
  description?: ReactNode;
  placeholders?: [string, string];
}) {
  const update = (key: number, patch: Partial<HeaderRow>) =>
    onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const general = errors.filter((e) => e.path === `target.${field}`).map((e) => e.message);
  const Noun = noun.charAt(0).toUpperCase() + noun.slice(1);
  return (
    <fieldset>
      <legend className="mb-1 text-sm font-medium text-slate-800">
        {legend} <span className="font-normal text-slate-400">(optional)</span>
      </legend>
      <p className="mb-2 text-xs text-slate-500">{description}</p>
      {rows.length ? (
        <div className="space-y-2">
          {rows.map((row, i) => {
            const rowErrors = row.name ? errorsAt(errors, `target.${field}.${row.name.trim()}`) : [];
            return (
              <div key={row.key}>
                <div className="flex gap-2">
                  <Input
                    aria-label={`${Noun} ${i + 1} name`}
                    placeholder={placeholders[0]}
                    className="font-mono"
                    value={row.name}
                    aria-invalid={rowErrors.length > 0}
                    onChange={(e) => update(row.key, { name: e.target.value })}
                  />
                  <Input
                    aria-label={`${Noun} ${i + 1} value`}
                    placeholder={placeholders[1]}
                    className="font-mono"
                    value={row.value}
                    onChange={(e) => update(row.key, { value: e.target.value })}
                  />
                  <Button
                    aria-label={`Remove ${noun} ${i + 1}`}
                    variant="ghost"
                    onClick={() => onChange(rows.filter((r) => r.key !== row.key))}
                  >
                    Remove
                  </Button>
                </div>
                {rowErrors.length ? <p className="mt-1 text-xs text-rose-700">{rowErrors.join('; ')}</p> : null}
              </div>
            );
          })}
        </div>
      ) : null}
      {general.length ? <p className="mt-1 text-xs text-rose-700">{general.join('; ')}</p> : null}
      <Button size="sm" className="mt-2" onClick={() => onChange([...rows, newHeaderRow()])}>
        Add {noun}
      </Button>
    </fieldset>
  );
}
