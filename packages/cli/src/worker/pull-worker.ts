// `belfry worker`: claims runs of a pull queue and runs a local command once per run — the
// payload on stdin, BELFRY_* variables in its environment — heartbeating the lease while it
// runs; exit 0 completes the run as succeeded, anything else as failed with the last 4 KiB of
// output. stop() drains: no more claims, running commands finish and are reported.
//
// Commands start in a process group of their own, so the Ctrl-C a terminal sends to its
// foreground group reaches the worker (which drains) but not the commands it is running.
import { spawn } from 'node:child_process';
import { ApiError, type BelfryClient, type ClaimedRun } from '@belfry/client';
import { OutputTail } from './output-tail';

export interface PullWorkerOptions {
  queue: string;
  concurrency: number;
  /** lease length per claim and heartbeat */
  leaseSeconds: number;
  /** how long one claim long-polls */
  waitSeconds: number;
  /** who this worker is, recorded on every attempt */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  log(line: string): void;
  /** where the commands' own output goes */
  output: { out(chunk: Buffer): void; err(chunk: Buffer): void };
}

export interface WorkerTotals {
  succeeded: number;
  failed: number;
  /** runs whose lease was lost (cancelled, expired) before they could be reported */
  lost: number;
}

// Every listener added to the worker's long-lived stop signal is removed again when its wait or
// request ends: a worker runs for weeks, and listeners left behind would pile up (one per claim).
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** A signal of its own for one request, aborted with `parent`; `release` detaches it. */
function childSignal(parent: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort(parent.reason);
  if (parent.aborted) abort();
  else parent.addEventListener('abort', abort, { once: true });
  return { signal: controller.signal, release: () => parent.removeEventListener('abort', abort) };
}

function isConflict(err: unknown): boolean {
  return err instanceof ApiError && err.status === 409;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class PullWorker {
  private readonly stopping = new AbortController();
  /** resolves when stop() is called (one listener for the worker's whole life) */
  private readonly stopped = new Promise<void>((resolve) =>
    this.stopping.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  private readonly running = new Set<Promise<void>>();
  private readonly children = new Set<ReturnType<typeof spawn>>();
  private readonly totals: WorkerTotals = { succeeded: 0, failed: 0, lost: 0 };

  constructor(
    private readonly client: BelfryClient,
    private readonly options: PullWorkerOptions,
  ) {}

  /** Claims no more; running commands finish and are reported, then run() resolves. */
  stop(): void {
    if (this.stopping.signal.aborted) return;
    this.options.log(`draining: waiting for ${this.running.size} running command(s); no more claims`);
    this.stopping.abort();
  }

  /** Stops at once: running commands get SIGTERM (their runs are reported failed, and retried). */
  kill(): void {
    this.stop();
    for (const child of this.children) {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }

  async run(): Promise<WorkerTotals> {
    const { options } = this;
    options.log(
      `worker ${options.name} claiming from queue ${options.queue} (concurrency ${options.concurrency}); Ctrl-C drains`,
    );
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      const room = options.concurrency - this.running.size;
      if (room <= 0) {
        await Promise.race([...this.running, this.stopped]);
        continue;
      }
      let claimed: ClaimedRun[];
      const request = childSignal(this.stopping.signal);
      try {
        const answer = await this.client.claimRuns(
          options.queue,
          { max: room, leaseSeconds: options.leaseSeconds, waitSeconds: options.waitSeconds, worker: options.name },
          { signal: request.signal },
        );
        claimed = answer.data;
        failures = 0;
      } catch (err) {
        if (this.stopping.signal.aborted) break;
        // Bad credentials or a refused request will not get better by retrying.
        if (err instanceof ApiError && [400, 401, 403, 404].includes(err.status)) throw err;
        failures++;
        const delay = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
        options.log(`claim failed (${describe(err)}); retrying in ${Math.round(delay / 1000)}s`);
        await sleep(delay, this.stopping.signal);
        continue;
      } finally {
        request.release();
      }
      for (const item of claimed) {
        const task: Promise<void> = this.execute(item).finally(() => this.running.delete(task));
        this.running.add(task);
      }
    }
    await Promise.all([...this.running]);
    options.log(
      `stopped: ${this.totals.succeeded} succeeded, ${this.totals.failed} failed, ${this.totals.lost} lost their lease`,
    );
    return this.totals;
  }

  private async execute(item: ClaimedRun): Promise<void> {
    const { options } = this;
    const { run } = item;
    const payload = JSON.stringify(item.payload ?? null);
    const tail = new OutputTail();
    let lost = false;
    const child = spawn(options.command, options.args, {
      env: {
        ...options.env,
        BELFRY_RUN_ID: run.id,
        BELFRY_JOB_ID: run.jobId,
        BELFRY_SCHEDULED_TIME: run.scheduledTime,
        BELFRY_ATTEMPT: String(run.attempt),
        BELFRY_PAYLOAD: payload,
        BELFRY_QUEUE: options.queue,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.children.add(child);
    // Logged once the command runs in a session of its own (spawn returns after it): a Ctrl-C
    // sent on seeing this line cannot reach it between fork and setsid, where it would kill it.
    options.log(`started ${run.id} (job ${run.jobId}, attempt ${run.attempt})`);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
      child.on('error', (error) => resolve({ code: null, signal: null, error }));
      child.on('close', (code, signal) => resolve({ code, signal }));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      tail.push(chunk);
      options.output.out(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      tail.push(chunk);
      options.output.err(chunk);
    });
    // A command that does not read its stdin closes it early: not an error.
    child.stdin.on('error', () => {});
    child.stdin.end(payload);

    // Heartbeats at a third of the lease; a 409 means the run is no longer ours (cancelled,
    // or the lease ran out): the command is stopped and nothing is reported.
    const { leaseToken } = item;
    const beat = setInterval(
      () => {
        this.client.heartbeatRun(run.id, { leaseToken, leaseSeconds: options.leaseSeconds }).catch((err: unknown) => {
          if (!isConflict(err)) {
            options.log(`heartbeat for ${run.id} failed (${describe(err)}); trying again`);
            return;
          }
          lost = true;
          options.log(`${run.id}: lease lost (${describe(err)}); stopping its command`);
          try {
            if (child.pid) process.kill(-child.pid, 'SIGTERM');
          } catch {
            // already gone
          }
        });
      },
      Math.max(1_000, (options.leaseSeconds * 1000) / 3),
    );
    const result = await exited;
    clearInterval(beat);
    this.children.delete(child);
    if (lost) {
      this.totals.lost++;
      return;
    }
    const output = tail.text();
    const ok = result.code === 0;
    const error = result.error
      ? `cannot start ${options.command}: ${result.error.message}`
      : result.signal
        ? `killed by ${result.signal}`
        : `exit code ${result.code}`;
    const body = ok
      ? { leaseToken, status: 'succeeded' as const, output }
      : { leaseToken, status: 'failed' as const, error, output };
    for (let attempt = 1; ; attempt++) {
      try {
        const done = await this.client.completeRun(run.id, body);
        if (ok) this.totals.succeeded++;
        else this.totals.failed++;
        options.log(`${ok ? 'succeeded' : `failed (${error})`} ${run.id}: run is ${done.status}`);
        return;
      } catch (err) {
        if (isConflict(err) || attempt >= 5 || (err instanceof ApiError && err.status < 500 && err.status !== 429)) {
          this.totals.lost++;
          options.log(`${run.id}: could not report the result (${describe(err)})`);
          return;
        }
        await sleep(500 * 2 ** attempt);
      }
    }
  }
}
