'use client';
// A query's three states in one place: a spinner while it loads, the error with "Try again",
// an empty state when there is nothing, otherwise what `children` renders from the data.
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Empty, ErrorState } from './empty';
import { Loading } from './spinner';

export function QueryState<T, E = unknown>({
  query,
  isEmpty,
  empty,
  children,
}: {
  query: UseQueryResult<T, E>;
  /** when the data counts as nothing; then `empty` is shown */
  isEmpty?: (data: T) => boolean;
  /** the empty state's title, text and action */
  empty?: { title: ReactNode; text?: ReactNode; action?: ReactNode };
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError) {
    const { error } = query;
    const message =
      typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
        ? error.message
        : 'Something went wrong';
    return <ErrorState error={message} retry={() => void query.refetch()} />;
  }
  if (empty && isEmpty?.(query.data)) {
    return (
      <Empty title={empty.title} action={empty.action}>
        {empty.text}
      </Empty>
    );
  }
  return <>{children(query.data)}</>;
}
