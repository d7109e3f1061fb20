// Tables: a bordered, horizontally scrollable wrapper and consistently padded cells.
import type { ReactNode, TdHTMLAttributes, ThHTMLAttributes } from 'react';

export function Table({ children, label }: { children: ReactNode; label?: string }) {
  return (
    <div className="overflow-x-auto">
      <table aria-label={label} className="min-w-full divide-y divide-slate-200 text-sm">
        {children}
      </table>
    </div>
  );
}

export function Th({ children, className = '', ...rest }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th
      scope="col"
      className={`bg-slate-50 px-3 py-2.5 first:pl-4 last:pr-4 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-slate-600 uppercase ${className}`}
      {...rest}
    >
      {children}
    </th>
  );
}

export function Td({ children, className = '', ...rest }: TdHTMLAttributes<HTMLTableCellElement>) {
  return (
    <td className={`px-3 py-3 align-middle first:pl-4 last:pr-4 text-slate-700 ${className}`} {...rest}>
      {children}
    </td>
  );
}

/** A column of TableHead: its label, or its label and extra classes (e.g. right-aligned numbers). */
export type Column = string | { label: string; className: string };

/**
 * The header row: one cell a column, then — with `actions` — an unlabelled last column for the
 * rows' buttons (named "Actions" for screen readers).
 */
export function TableHead({ columns, actions = false }: { columns: Column[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((c) =>
          typeof c === 'string' ? (
            <Th key={c}>{c}</Th>
          ) : (
            <Th key={c.label} className={c.className}>
              {c.label}
            </Th>
          ),
        )}
        {actions ? (
          <Th>
            <span className="sr-only">Actions</span>
          </Th>
        ) : null}
      </tr>
    </thead>
  );
}

export function TBody({ children }: { children: ReactNode }) {
  return <tbody className="divide-y divide-slate-100 bg-white">{children}</tbody>;
}
