// Reading the dashboard's errors on the client: the message to show, and the field errors
// ({ path, message }, the same paths as the REST API's problem+json) to put beside fields.
import { TRPCClientError } from '@trpc/client';

export interface FieldError {
  path: string;
  message: string;
}

export function errorMessage(err: unknown): string {
  if (err instanceof TRPCClientError) return err.message;
  if (err instanceof Error) return err.message;
  return 'Something went wrong';
}

export function fieldErrors(err: unknown): FieldError[] {
  if (!(err instanceof TRPCClientError)) return [];
  const list = (err.data as { fieldErrors?: FieldError[] | null } | undefined)?.fieldErrors;
  return Array.isArray(list) ? list : [];
}

export function errorCode(err: unknown): string | undefined {
  return err instanceof TRPCClientError ? (err.data?.code as string | undefined) : undefined;
}

/** The messages for `path` and anything under it (e.g. "target.headers.x-a" under "target.headers"). */
export function errorsAt(errors: FieldError[], path: string): string[] {
  return errors.filter((e) => e.path === path || e.path.startsWith(`${path}.`)).map((e) => e.message);
}
