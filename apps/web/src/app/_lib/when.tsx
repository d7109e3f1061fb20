// A moment as people read it in tables: "3 min ago" (or "in 2 d"), the local date and time on
// hover, and a muted word when there is none.
import { formatLocal, relative } from './time';

export function When({ at, now, never = '—' }: { at: string | null; now: number; never?: string }) {
  if (!at) return <span className="text-slate-400">{never}</span>;
  return <span title={formatLocal(at)}>{relative(at, now)}</span>;
}
