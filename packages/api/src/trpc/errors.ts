// The dashboard's half of "one error type": an AppError becomes a TRPCError once, here, with
// the same field errors ({ path, message }) the REST API puts in problem+json, so forms can
// show a server-side validation message beside the field it belongs to.
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { AppError, type FieldError } from '../errors';
import { fieldErrors } from '../schemas/validate';

// By HTTP status rather than by AppError code, so a code added later still maps sensibly.
const BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

export function toTRPCError(err: AppError): TRPCError {
  return new TRPCError({ code: BY_STATUS[err.status] ?? 'INTERNAL_SERVER_ERROR', message: err.message, cause: err });
}

interface ZodLikeError {
  issues: unknown[];
  name: string;
}

function isZodError(value: unknown): value is ZodLikeError & Parameters<typeof fieldErrors>[0] {
  return typeof value === 'object' && value !== null && Array.isArray((value as ZodLikeError).issues);
}

/** Field errors carried by a failure: an AppError's, or a failed input schema's. */
export function fieldErrorsOf(error: TRPCError): FieldError[] | null {
  const cause = error.cause;
  if (cause instanceof AppError) return cause.errors ?? null;
  if (isZodError(cause)) return fieldErrors(cause);
  return null;
}

/** What a client may see of a failure: our own errors verbatim, never the text of a crash. */
export function publicMessage(error: TRPCError): string {
  if (error.cause instanceof AppError || error.code !== 'INTERNAL_SERVER_ERROR') {
    if (isZodError(error.cause)) {
      const first = fieldErrors(error.cause)[0];
      return first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'Invalid input';
    }
    return error.message;
  }
  return 'Something went wrong on our side. Try again; if it keeps happening, check the server logs.';
}
