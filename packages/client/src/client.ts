// BelfryClient: one method per operation of /api/v1, typed by the generated OpenAPI types.
// Underneath is an openapi-fetch client (`client.api`) over the transport (auth, timeout,
// 429 retry, errors), so an operation without a method here is still one typed call away:
// `client.api.GET('/api/v1/...', { params })`.
import createClient, { type Client } from 'openapi-fetch';
import { UnexpectedResponseError } from './errors';
import type { paths } from './generated/openapi';
import { createTransport } from './transport';
import type {
  DeadLetterReplay,
  DeadLetterRun,
  Job,
  JobCreate,
  JobPatch,
  Limits,
  operations,
  Page,
  ReplayResult,
  Run,
  SchedulePreview,
  SigningSecret,
} from './types';

export interface BelfryClientOptions {
  /** the server, e.g. http://localhost:3000 (without /api/v1) */
  baseUrl: string;
  /** an API key (bfy_...); not needed for health() and openApiDocument() */
  token?: string;
  /** per request, including reading the answer; default 30 s */
  timeoutMs?: number;
  userAgent?: string;
  /** a 429 asking for at most this many seconds is retried once; default 10, 0 turns it off */
  maxAutoRetryAfterSeconds?: number;
  fetch?: typeof fetch;
  /** how the 429 retry waits; injectable so tests do not sleep */
  sleep?: (ms: number) => Promise<void>;
}

type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
export type ListJobsQuery = QueryOf<'listJobs'>;
export type ListRunsQuery = QueryOf<'listJobRuns'>;
export type ListDeadLetterQuery = QueryOf<'listDeadLetter'>;
export type SchedulePreviewQuery = QueryOf<'previewSchedule'>;

/** What a call answers: its data, or a SyntaxError from a body that claimed JSON and was not. */
async function dataOf<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  try {
    const { data } = await call;
    return data as T;
  } catch (err) {
    if (err instanceof SyntaxError)
      throw new UnexpectedResponseError(`the server's answer is not valid JSON: ${err.message}`);
    throw err;
  }
}

export class BelfryClient {
  /** the typed openapi-fetch client every method below uses */
  readonly api: Client<paths>;
  readonly baseUrl: string;

  constructor(options: BelfryClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    const transport = createTransport({
      baseUrl: this.baseUrl,
      token: options.token,
      userAgent: options.userAgent ?? 'belfry-client',
      timeoutMs: options.timeoutMs ?? 30_000,
      maxAutoRetryAfterSeconds: options.maxAutoRetryAfterSeconds ?? 10,
      fetch: (input, init) => fetchImpl(input, init),
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    });
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: transport });
  }

  listJobs(query: ListJobsQuery = {}): Promise<Page<Job>> {
    return dataOf(this.api.GET('/api/v1/jobs', { params: { query } }));
  }

  /** With an idempotency key, repeating the same body within 24 h answers the same job. */
  createJob(body: JobCreate, options: { idempotencyKey?: string } = {}): Promise<Job> {
    const header = options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {};
    return dataOf(this.api.POST('/api/v1/jobs', { body, params: { header } }));
  }

  /**
   * Creates up to 1,000 jobs in one request, all or none (a 400 names each bad item as
   * `jobs.<index>.<field>`). Answers the jobs in the order given.
   */
  async createJobs(jobs: JobCreate[], options: { idempotencyKey?: string } = {}): Promise<Job[]> {
    const header = options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {};
    const batch = await dataOf(this.api.POST('/api/v1/jobs/batch', { body: { jobs }, params: { header } }));
    return batch.data;
  }

  getJob(id: string): Promise<Job> {
    return dataOf(this.api.GET('/api/v1/jobs/{id}', { params: { path: { id } } }));
  }

  updateJob(id: string, patch: JobPatch): Promise<Job> {
    return dataOf(this.api.PATCH('/api/v1/jobs/{id}', { params: { path: { id } }, body: patch }));
  }

  /** Pending runs are cancelled; history is kept. Answers nothing (204). */
  async deleteJob(id: string): Promise<void> {
    await dataOf(this.api.DELETE('/api/v1/jobs/{id}', { params: { path: { id } } }));
  }

  pauseJob(id: string): Promise<Job> {
    return dataOf(this.api.POST('/api/v1/jobs/{id}/pause', { params: { path: { id } } }));
  }

  resumeJob(id: string): Promise<Job> {
    return dataOf(this.api.POST('/api/v1/jobs/{id}/resume', { params: { path: { id } } }));
  }

  /** Runs the job now, once, outside its schedule; answers the new run. */
  triggerJob(id: string): Promise<Run> {
    return dataOf(this.api.POST('/api/v1/jobs/{id}/trigger', { params: { path: { id } } }));
  }

  listRuns(jobId: string, query: ListRunsQuery = {}): Promise<Page<Run>> {
    return dataOf(this.api.GET('/api/v1/jobs/{id}/runs', { params: { path: { id: jobId }, query } }));
  }

  getRun(runId: string): Promise<Run> {
    return dataOf(this.api.GET('/api/v1/runs/{runId}', { params: { path: { runId } } }));
  }

  cancelRun(runId: string): Promise<Run> {
    return dataOf(this.api.POST('/api/v1/runs/{runId}/cancel', { params: { path: { runId } } }));
  }

  /** Runs a finished run's job again now, as a new run linked to it. */
  replayRun(runId: string): Promise<Run> {
    return dataOf(this.api.POST('/api/v1/runs/{runId}/replay', { params: { path: { runId } } }));
  }

  /** Dead runs, replayed or not (`replayedBy`), newest death first. */
  listDeadLetter(query: ListDeadLetterQuery = {}): Promise<Page<DeadLetterRun>> {
    return dataOf(this.api.GET('/api/v1/dead-letter', { params: { query } }));
  }

  replayDeadLetter(body: DeadLetterReplay): Promise<ReplayResult> {
    return dataOf(this.api.POST('/api/v1/dead-letter/replay', { body }));
  }

  /** The next fire times of a cron expression or interval, exactly as the scheduler computes them. */
  previewSchedule(query: SchedulePreviewQuery): Promise<SchedulePreview> {
    return dataOf(this.api.GET('/api/v1/schedule/preview', { params: { query } }));
  }

  getSigningSecret(): Promise<SigningSecret> {
    return dataOf(this.api.GET('/api/v1/signing-secret'));
  }

  /** The previous secret keeps signing alongside the new one for 24 hours. */
  rotateSigningSecret(): Promise<SigningSecret> {
    return dataOf(this.api.POST('/api/v1/signing-secret/rotate'));
  }

  /** The tenant's limits and usage; a change past one answers 422 quota-exceeded (a BelfryApiError). */
  getLimits(): Promise<Limits> {
    return dataOf(this.api.GET('/api/v1/limits'));
  }

  health(): Promise<{ status: 'ok' }> {
    return dataOf(this.api.GET('/api/v1/healthz'));
  }

  /** Every item of a list, following nextCursor: `for await (const job of client.paginate((q) => client.listJobs(q)))`. */
  async *paginate<T>(fetchPage: (page: { limit?: number; cursor?: string }) => Promise<Page<T>>, limit = 500) {
    for (let cursor: string | undefined; ; ) {
      const page = await fetchPage({ limit, ...(cursor ? { cursor } : {}) });
      yield* page.data;
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }
}
