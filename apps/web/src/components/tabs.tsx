'use client';
// Tabs as a radio-like group of buttons (role=tablist), arrow keys move between them.
import type { KeyboardEvent, ReactNode } from 'react';

export function Tabs<T extends string>({
  value,
  onChange,
  options,
  label,
}: {
  value: T;
  onChange: (value: T) => void;
  options: Array<{ value: T; label: ReactNode; count?: number }>;
  label: string;
}) {
  const onKey = (e: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const delta = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!delta) return;
    e.preventDefault();
    const next = options[(index + delta + options.length) % options.length];
    if (next) {
      onChange(next.value);
      const buttons = e.currentTarget.parentElement?.querySelectorAll('button');
      (buttons?.[(index + delta + options.length) % options.length] as HTMLButtonElement | undefined)?.focus();
    }
  };
  return (
    <div role="tablist" aria-label={label} className="inline-flex rounded-md bg-slate-100 p-0.5">
      {options.map((o, i) => {
        const selected = o.value === value;
        return (
          <button
            key={o.value}
            type="button"
            role="tab"
            aria-selected={selected}
            tabIndex={selected ? 0 : -1}
            onClick={() => onChange(o.value)}
            onKeyDown={(e) => onKey(e, i)}
            className={`rounded px-3 py-1 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600 ${
              selected ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900'
            }`}
          >
            {o.label}
            {o.count !== undefined ? (
              <span className="ml-1.5 text-xs text-slate-400 tabular-nums">{o.count}</span>
            ) : null}
          </button>
        );
      })}
    </div>
  );
}
