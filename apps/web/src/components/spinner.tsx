// A small spinning indicator, and a centred "Loading ..." block for whole sections.
export function Spinner({ size = 'md', label }: { size?: 'sm' | 'md'; label?: string }) {
  const dim = size === 'sm' ? 'h-3.5 w-3.5' : 'h-5 w-5';
  return (
    <span role={label ? 'status' : undefined} className="inline-flex items-center gap-2">
      <svg className={`${dim} animate-spin text-current`} viewBox="0 0 24 24" fill="none" aria-hidden="true">
        <circle className="opacity-25" cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="4" />
        <path className="opacity-75" fill="currentColor" d="M4 12a8 8 0 018-8v4a4 4 0 00-4 4H4z" />
      </svg>
      {label ? <span className="text-sm text-slate-500">{label}</span> : null}
    </span>
  );
}

export function Loading({ label = 'Loading …' }: { label?: string }) {
  return (
    <div className="flex items-center justify-center py-16 text-slate-400">
      <Spinner label={label} />
    </div>
  );
}
