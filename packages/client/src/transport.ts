// The fetch that openapi-fetch is given: it adds the API key, a timeout and one retry of a
// short 429, and turns every failure into an error (ApiError, NetworkError,
// UnexpectedResponseError), so a call either answers its documented 2xx body or throws.
import {
  ApiError,
  describeNetworkError,
  NetworkError,
  retryAfterSeconds,
  toProblem,
  UnexpectedResponseError,
} from './errors';

export interface TransportOptions {
  baseUrl: string;
  token?: string;
  userAgent: string;
  timeoutMs: number;
  /** a 429 whose Retry-After is at most this many seconds is retried once; longer waits are the caller's call */
  maxAutoRetryAfterSeconds: number;
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
}

export function createTransport(options: TransportOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    // The body is read once so a retried request can send it again; the caller's fetch gets
    // (url, init), which every fetch implementation and test double understands.
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    const headers = new Headers(request.headers);
    headers.set('accept', 'application/json, application/problem+json');
    headers.set('user-agent', options.userAgent);
    if (options.token) headers.set('authorization', `Bearer ${options.token}`);
    if (!body) headers.delete('content-type');

    for (let attempt = 0; ; attempt++) {
      const response = await send(options, request, headers, body);
      if (response.status === 429 && attempt === 0) {
        const wait = retryAfterSeconds(response.headers.get('retry-after'));
        if (wait !== null && wait <= options.maxAutoRetryAfterSeconds) {
          await response.body?.cancel();
          await options.sleep(wait * 1000);
          continue;
        }
      }
      return check(options, request, response);
    }
  };
}

async function send(options: TransportOptions, request: Request, headers: Headers, body: string | undefined) {
  const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]);
  try {
    return await options.fetch(request.url, { method: request.method, headers, body: body || undefined, signal });
  } catch (err) {
    throw new NetworkError(`cannot reach ${options.baseUrl}: ${describeNetworkError(err, options.timeoutMs)}`);
  }
}

/** Passes a JSON (or empty) 2xx through; throws for everything else. */
async function check(options: TransportOptions, request: Request, response: Response): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  if (response.ok && (response.status === 204 || type.includes('json'))) return response;
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    throw new NetworkError(`cannot reach ${options.baseUrl}: ${describeNetworkError(err, options.timeoutMs)}`);
  }
  if (response.ok) {
    if (text === '') return new Response(null, { status: 204, headers: response.headers });
    throw new UnexpectedResponseError(
      `unexpected response from ${request.method} ${request.url}: HTTP ${response.status} ${type || 'without a content type'} (is ${options.baseUrl} a Belfry server?)`,
    );
  }
  let json: unknown;
  if (type.includes('json')) {
    try {
      json = JSON.parse(text);
    } catch {
      // described below from the status alone
    }
  }
  throw new ApiError(
    response.status,
    toProblem(response, json, options.baseUrl),
    retryAfterSeconds(response.headers.get('retry-after')),
  );
}
