// The one error type of the domain. Transports map it once: to problem+json for REST
// (see toProblem) and to a tRPC code for the dashboard.
export type AppErrorCode =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'unprocessable'
  | 'quota_exceeded'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

export interface QuotaDetails {
  /** the limit's field in GET /api/v1/limits, e.g. maxJobs */
  quota: string;
  limit: number;
  current: number;
}

export interface FieldError {
  path: string;
  message: string;
}

const STATUS: Record<AppErrorCode, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  unprocessable: 422,
  quota_exceeded: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

const TITLE: Record<AppErrorCode, string> = {
  validation: 'Invalid request',
  unauthenticated: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  unprocessable: 'Unprocessable request',
  quota_exceeded: 'Quota exceeded',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  unavailable: 'Service unavailable',
  internal: 'Internal server error',
};

export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** quota_exceeded: which limit, its value, and the usage before the refused change */
  readonly quota: QuotaDetails | undefined;

  constructor(
    code: AppErrorCode,
    message: string,
    extra: { errors?: FieldError[]; retryAfterSeconds?: number; quota?: QuotaDetails } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.errors = extra.errors;
    this.retryAfterSeconds = extra.retryAfterSeconds;
    this.quota = extra.quota;
  }

  get status(): number {
    return STATUS[this.code];
  }

  static notFound(what: string): AppError {
    return new AppError('not_found', `${what} not found`);
  }

  /** A validation failure with one entry per offending field. */
  static invalid(errors: FieldError[], message?: string): AppError {
    const first = errors[0];
    const detail = message ?? (first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'invalid request');
    return new AppError('validation', detail, { errors });
  }
}

/** Expected errors are the caller's fault (4xx) and log at warn; anything else is ours. */
export function isExpectedError(err: unknown): err is AppError {
  return err instanceof AppError && err.status < 500;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  quota?: string;
  limit?: number;
  current?: number;
}

export function toProblem(err: AppError): Problem {
  return {
    type: `https://belfry.dev/problems/${err.code.replaceAll('_', '-')}`,
    title: TITLE[err.code],
    status: err.status,
    detail: err.message,
    ...(err.errors ? { errors: err.errors } : {}),
    ...(err.quota ? { quota: err.quota.quota, limit: err.quota.limit, current: err.quota.current } : {}),
  };
}
