// The minimal query interface hot-path SQL needs: a pg Pool, or a client inside a transaction.
export interface Queryable {
  query<R extends object = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}
