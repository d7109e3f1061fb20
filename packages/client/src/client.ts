// BelfryClient: one method per operation of /api/v1, typed by the generated OpenAPI types.
// Underneath is an openapi-fetch client (`client.api`) over the transport (auth, timeout,
// 429 retry, errors), so an operation without a method here is still one typed call away:
// `client.api.GET('/api/v1/...', { params })`.
import createClient, { type Client } from 'openapi-fetch';
import { UnexpectedResponseError } from './errors';
import type { paths } from './generated/openapi';
import { createTransport } from './transport';
import type {
  AlertChannel,
  AlertChannelInput,
  AlertChannelPatch,
  AlertChannelTestResult,
  AlertPolicy,
  AlertPolicyInput,
  ClaimedRun,
  ClaimRequest,
  CompleteRequest,
  DeadLetterReplay,
  DeadLetterRun,
  Incident,
  Job,
  JobCreate,
  JobPatch,
  Limits,
  operations,
  HeartbeatRequest,
  Page,
  PullQueue,
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
export type ListIncidentsQuery = QueryOf<'listIncidents'>;
export type ListQueuesQuery = QueryOf<'listQueues'>;
export type ListAlertChannelsQuery = QueryOf<'listAlertChannels'>;

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

  /**
   * Claims due runs of a pull queue (a long-poll with `waitSeconds`); each comes with the lease
   * token that heartbeatRun and completeRun need. Give `timeoutMs` above `waitSeconds` when
   * constructing the client. `signal` abandons the wait.
   */
  claimRuns(
    queue: string,
    body: ClaimRequest = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<{ data: ClaimedRun[] }> {
    return dataOf(
      this.api.POST('/api/v1/queues/{queue}/claim', {
        params: { path: { queue } },
        body,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
  }

  /** Extends a claimed run's lease; an ApiError with status 409 when the lease is no longer held. */
  heartbeatRun(runId: string, body: HeartbeatRequest): Promise<{ leaseExpiresAt: string }> {
    return dataOf(this.api.POST('/api/v1/runs/{runId}/heartbeat', { params: { path: { runId } }, body }));
  }

  /** Reports how a claimed run's attempt ended; 409 (ApiError) with a stale lease token. */
  completeRun(runId: string, body: CompleteRequest): Promise<Run> {
    return dataOf(this.api.POST('/api/v1/runs/{runId}/complete', { params: { path: { runId } }, body }));
  }

  /** The tenant's pull queues: waiting, claimed, last claim, workers seen. */
  /** A page of the tenant's pull queues, by name. */
  listQueues(query: ListQueuesQuery = {}): Promise<Page<PullQueue>> {
    return dataOf(this.api.GET('/api/v1/queues', { params: { query } }));
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

  /** A page of the tenant's alert channels, oldest first. */
  listAlertChannels(query: ListAlertChannelsQuery = {}): Promise<Page<AlertChannel>> {
    return dataOf(this.api.GET('/api/v1/alert-channels', { params: { query } }));
  }

  /** Secrets (a Slack URL, a webhook URL's query, a PagerDuty routing key) read back as `***`. */
  createAlertChannel(body: AlertChannelInput): Promise<AlertChannel> {
    return dataOf(this.api.POST('/api/v1/alert-channels', { body }));
  }

  getAlertChannel(id: string): Promise<AlertChannel> {
    return dataOf(this.api.GET('/api/v1/alert-channels/{id}', { params: { path: { id } } }));
  }

  /** Sending a masked value (`***`) back keeps the stored secret. */
  updateAlertChannel(id: string, patch: AlertChannelPatch): Promise<AlertChannel> {
    return dataOf(this.api.PATCH('/api/v1/alert-channels/{id}', { params: { path: { id } }, body: patch }));
  }

  async deleteAlertChannel(id: string): Promise<void> {
    await dataOf(this.api.DELETE('/api/v1/alert-channels/{id}', { params: { path: { id } } }));
  }

  /** Sends a test notification now; answers whether it was delivered. */
  testAlertChannel(id: string): Promise<AlertChannelTestResult> {
    return dataOf(this.api.POST('/api/v1/alert-channels/{id}/test', { params: { path: { id } } }));
  }

  getAlertPolicy(): Promise<AlertPolicy> {
    return dataOf(this.api.GET('/api/v1/alert-policy'));
  }

  /** Replaces the tenant's default alert settings; a key left out takes its default. */
  putAlertPolicy(body: AlertPolicyInput): Promise<AlertPolicy> {
    return dataOf(this.api.PUT('/api/v1/alert-policy', { body }));
  }

  /** Incidents newest first, each with its notifications. */
  listIncidents(query: ListIncidentsQuery = {}): Promise<Page<Incident>> {
    return dataOf(this.api.GET('/api/v1/incidents', { params: { query } }));
  }

  /** The tenant's limits and usage; a change past one answers 422 quota-exceeded (a BelfryApiError). */
  getLimits(): Promise<Limits> {
    return dataOf(this.api.GET('/api/v1/limits'));
  }

  /** Ends a rotation now: the previous secret stops signing (no change without a rotation under way). */
  revokePreviousSigningSecret(): Promise<SigningSecret> {
    return dataOf(this.api.POST('/api/v1/signing-secret/revoke-previous'));
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
