'use client';
// Cursor pagination for tables: the cursors of the pages before this one (the current page's
// is the last), and the footer with the buttons that move between pages.
import { type ReactNode, useCallback, useState } from 'react';
import { Button } from './button';

export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  const reset = useCallback(() => setCursors([]), []);
  return {
    /** the cursor of the current page; undefined on the first */
    cursor: cursors[cursors.length - 1] as string | undefined,
    /** 0 on the first page */
    index: cursors.length,
    next: (cursor: string | null | undefined) => cursor && setCursors((c) => [...c, cursor]),
    back: () => setCursors((c) => c.slice(0, -1)),
    reset,
  };
}

export function Pager({
  pages,
  nextCursor,
  labels = ['Newer', 'Older'],
  children,
}: {
  pages: ReturnType<typeof useCursorPages>;
  nextCursor: string | null | undefined;
  /** [back, forward] */
  labels?: [string, string];
  /** shown at the left, e.g. "1–50 of 120" */
  children?: ReactNode;
}) {
  return (
    <div className="flex items-center justify-between border-t border-slate-200 px-4 py-2.5 text-sm text-slate-600">
      <span className="tabular-nums">{children}</span>
      <div className="flex gap-2">
        <Button size="sm" disabled={pages.index === 0} onClick={pages.back}>
          {labels[0]}
        </Button>
        <Button size="sm" disabled={!nextCursor} onClick={() => pages.next(nextCursor)}>
          {labels[1]}
        </Button>
      </div>
    </div>
  );
}
