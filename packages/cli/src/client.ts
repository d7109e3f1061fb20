// The one door to the REST API: a small typed client over fetch. It owns the base path,
// authentication, timeouts, the single 429 retry, and turning every failure into ApiError
// (the server answered) or NetworkError (it did not), so commands never look at a Response.
import { ApiError, CliError, NetworkError } from './errors';
import type {
  DeadLetterReplayBody,
  DeadLetterRun,
  Job,
  JobCreateBody,
  Page,
  Problem,
  ReplayResult,
  Run,
} from './types';

export interface ClientOptions {
  /** the server, e.g. http://localhost:3000 (no /api/v1) */
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  userAgent?: string;
  /** waits for Retry-After; injectable so tests do not sleep */
  sleep?: (ms: number) => Promise<void>;
}

type Query = Record<string, string | number | undefined>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ListQuery {
  limit?: number;
  cursor?: string;
}

/** A 429 is retried once when the server asks for a short wait; longer waits are the user's call. */
const MAX_AUTO_RETRY_AFTER_SECONDS = 10;

export class BelfryClient {
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ClientOptions) {
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  listJobs(query: ListQuery & { status?: string; name?: string } = {}): Promise<Page<Job>> {
    return this.call('GET', '/jobs', { query: { ...query } });
  }

  getJob(id: string): Promise<Job> {
    return this.call('GET', `/jobs/${enc(id)}`);
  }

  createJob(body: JobCreateBody, options: { idempotencyKey?: string } = {}): Promise<Job> {
    const headers: Record<string, string> = options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {};
    return this.call('POST', '/jobs', { body, headers });
  }

  pauseJob(id: string): Promise<Job> {
    return this.call('POST', `/jobs/${enc(id)}/pause`, { body: {} });
  }

  resumeJob(id: string): Promise<Job> {
    return this.call('POST', `/jobs/${enc(id)}/resume`, { body: {} });
  }

  /** The contract does not fix the body of a delete; null when the server sends none. */
  deleteJob(id: string): Promise<unknown> {
    return this.request('DELETE', `/jobs/${enc(id)}`);
  }

  triggerJob(id: string): Promise<Run> {
    return this.call('POST', `/jobs/${enc(id)}/trigger`, { body: {} });
  }

  listRuns(jobId: string, query: ListQuery & { status?: string } = {}): Promise<Page<Run>> {
    return this.call('GET', `/jobs/${enc(jobId)}/runs`, { query: { ...query } });
  }

  getRun(id: string): Promise<Run> {
    return this.call('GET', `/runs/${enc(id)}`);
  }

  cancelRun(id: string): Promise<Run> {
    return this.call('POST', `/runs/${enc(id)}/cancel`, { body: {} });
  }

  replayRun(id: string): Promise<Run> {
    return this.call('POST', `/runs/${enc(id)}/replay`, { body: {} });
  }

  listDeadLetter(query: ListQuery & { jobId?: string } = {}): Promise<Page<DeadLetterRun>> {
    return this.call('GET', '/dead-letter', { query: { ...query } });
  }

  replayDeadLetter(body: DeadLetterReplayBody): Promise<ReplayResult> {
    return this.call('POST', '/dead-letter/replay', { body });
  }

  /** For endpoints that always answer JSON. */
  private async call<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const result = await this.request(method, path, options);
    if (result === null) throw new CliError(`unexpected empty response from ${method} ${this.apiUrl(path)}`);
    return result as T;
  }

  /** Sends one request (plus at most one retry on a short 429); null for an empty 2xx body. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const response = await this.send(method, path, options);
      if (response.status === 429 && attempt === 0) {
        const wait = retryAfterSeconds(response.headers.get('retry-after'));
        if (wait !== null && wait <= MAX_AUTO_RETRY_AFTER_SECONDS) {
          await response.body?.cancel();
          await this.sleep(wait * 1000);
          continue;
        }
      }
      return this.read(method, path, response);
    }
  }

  private apiUrl(path: string, query: Query = {}): string {
    const url = new URL(`${this.options.baseUrl}/api/v1${path}`);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  private async send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      'user-agent': this.options.userAgent ?? 'belfry-cli',
      ...options.headers,
    };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    try {
      return await this.fetchImpl(this.apiUrl(path, options.query), {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new NetworkError(`cannot reach ${this.options.baseUrl}: ${describeNetworkError(err, this.timeoutMs)}`);
    }
  }

  private async read(method: string, path: string, response: Response): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw new NetworkError(`cannot reach ${this.options.baseUrl}: ${describeNetworkError(err, this.timeoutMs)}`);
    }
    const type = response.headers.get('content-type') ?? '';
    let json: unknown;
    let parsed = false;
    if (text !== '' && type.includes('json')) {
      try {
        json = JSON.parse(text);
        parsed = true;
      } catch {
        // reported below as a response that is not JSON
      }
    }
    if (!response.ok) {
      throw new ApiError(
        response.status,
        toProblem(response, parsed ? json : undefined, this.options.baseUrl),
        retryAfterSeconds(response.headers.get('retry-after')),
      );
    }
    if (text === '') return null;
    if (!parsed) {
      throw new CliError(
        `unexpected response from ${method} ${this.apiUrl(path)}: HTTP ${response.status} ${type || 'without a content type'} (is ${this.options.baseUrl} a Belfry server?)`,
      );
    }
    return json;
  }
}

const enc = encodeURIComponent;

function toProblem(response: Response, body: unknown, baseUrl: string): Problem {
  if (body && typeof body === 'object' && ('detail' in body || 'title' in body)) {
    const b = body as Partial<Problem>;
    const problem: Problem = { ...b, detail: String(b.detail ?? b.title ?? `HTTP ${response.status}`) };
    if (!Array.isArray(problem.errors)) delete problem.errors;
    return problem;
  }
  const reason = response.statusText ? ` ${response.statusText}` : '';
  const hint = response.status === 404 ? ` (is ${baseUrl} a Belfry server?)` : '';
  return { status: response.status, detail: `HTTP ${response.status}${reason}${hint}` };
}

/** Retry-After as delay-seconds (the only form the API sends); null when absent or unparseable. */
export function retryAfterSeconds(value: string | null): number | null {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return null;
  return Number(value);
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (temporary DNS failure)',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'the connection closed unexpectedly',
};

/** fetch wraps the interesting part in `cause` (an AggregateError when several addresses were tried). */
export function describeNetworkError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  }
  const cause = (err as { cause?: unknown } | null)?.cause ?? err;
  const c = cause as { code?: string; errors?: { code?: string }[]; message?: string } | null;
  const code = c?.code ?? c?.errors?.find((e) => e.code)?.code;
  if (code && NETWORK_CODES[code]) return NETWORK_CODES[code];
  if (code && /CERT|TLS|SSL/.test(code)) return `TLS failure (${code})`;
  return c?.message || (err instanceof Error ? err.message : String(err));
}
