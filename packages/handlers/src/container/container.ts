// Runs one attempt of a `container` target: the image per its pull policy, a locked-down
// container named by run and attempt (no privileges, every capability dropped,
// no-new-privileges, a pids limit, the memory and CPU limits given, no network unless
// `bridge`), started, waited for; past the attempt's timeout SIGTERM and, `killGraceMs` later,
// SIGKILL. Its exit code and the last 4 KiB of its output are collected, then it is removed.
// Any abort (cancel, pause, lost lease, shutdown) stops it the same way, so a run never has a
// container left running that nobody answers for. An attempt resumed after its node died
// adopts the container that node started (found by name) instead of starting another.
import type { FailureKind } from '@belfry/core';
import type Docker from 'dockerode';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HandlerContext, HandlerOutcome, Handler } from '../types';
import { containerName, dockerMessage, dockerStatus, LABELS } from './docker';
import type { ImageAllowList } from './images';
import { demuxLogs, tailText } from './output';
import type { StoredContainerTarget } from './schema';

/** Linux refuses a single environment string longer than this (MAX_ARG_STRLEN). */
const MAX_ENV_STRING = 128 * 1024 - 1;
const LOG_TAIL_LINES = 4096;

export interface ContainerHandlerOptions {
  docker: Docker;
  images: ImageAllowList;
  /** between SIGTERM and SIGKILL when a container is stopped; default 10 s */
  killGraceMs?: number;
  /** processes a container may have at once; default 512 */
  pidsLimit?: number;
  /** more labels for every container (the engine's deployment id) */
  labels?: Record<string, string>;
}

type Result = Omit<HandlerOutcome, 'durationMs'>;

const fail = (failure: FailureKind, error: string, extra: Partial<Result> = {}): Result => ({
  ok: false,
  failure,
  error,
  ...extra,
});

class ImageError extends Error {}

export class ContainerHandler implements Handler<StoredContainerTarget> {
  readonly type = 'container';
  private readonly docker: Docker;
  private readonly killGraceMs: number;
  private readonly pidsLimit: number;

  constructor(private readonly options: ContainerHandlerOptions) {
    this.docker = options.docker;
    this.killGraceMs = options.killGraceMs ?? 10_000;
    this.pidsLimit = options.pidsLimit ?? 512;
  }

  async execute(target: StoredContainerTarget, payload: unknown, ctx: HandlerContext): Promise<HandlerOutcome> {
    const started = performance.now();
    let result: Result;
    try {
      result = await this.run(target, payload, ctx);
    } catch (err) {
      result = fail('connection', `Docker Engine: ${dockerMessage(err)}`);
    }
    return { ...result, durationMs: performance.now() - started };
  }

  private async run(target: StoredContainerTarget, payload: unknown, ctx: HandlerContext): Promise<Result> {
    const refusal = this.options.images.refusal(target.image);
    if (refusal) return fail('refused', refusal);
    const name = containerName(ctx.runId, ctx.attempt);
    let container: Docker.Container | null = null;
    let deadline = Date.now() + ctx.timeoutMs;
    if (ctx.resumed) {
      const found = await this.adopt(name, ctx.timeoutMs);
      if (found) ({ container, deadline } = found);
    }
    if (!container) {
      const payloadJson = JSON.stringify(payload ?? null);
      if (Buffer.byteLength(payloadJson) + 'BELFRY_PAYLOAD='.length > MAX_ENV_STRING) {
        return fail('invalid', 'payload too large for BELFRY_PAYLOAD (at most 128 KiB as JSON)');
      }
      if (ctx.signal.aborted) return fail('connection', 'not started: stopped before the container started');
      try {
        await this.ensureImage(target);
      } catch (err) {
        if (err instanceof ImageError) return fail('image', err.message);
        throw err;
      }
      try {
        container = await this.docker.createContainer(this.spec(name, target, payloadJson, ctx));
      } catch (err) {
        // Created already (by this attempt on a node that died, or a retry of this call): adopt it.
        if (dockerStatus(err) !== 409)
          return fail('connection', `could not create the container: ${dockerMessage(err)}`);
        const found = await this.adopt(name, ctx.timeoutMs);
        if (!found) return fail('connection', `could not create the container: ${dockerMessage(err)}`);
        ({ container, deadline } = found);
      }
      if (ctx.signal.aborted) {
        await this.remove(container);
        return fail('connection', 'not started: stopped before the container started');
      }
      if (!(await this.isStarted(container))) {
        try {
          await container.start();
        } catch (err) {
          await this.remove(container);
          return fail('connection', `could not start the container: ${dockerMessage(err)}`);
        }
        deadline = Date.now() + ctx.timeoutMs;
      }
    }
    return this.superviseAndCollect(container, deadline, ctx);
  }

  /** The container an earlier run of this attempt left, with its deadline (timeout from its start). */
  private async adopt(
    name: string,
    timeoutMs: number,
  ): Promise<{ container: Docker.Container; deadline: number } | null> {
    const container = this.docker.getContainer(name);
    let info: Docker.ContainerInspectInfo;
    try {
      info = await container.inspect();
    } catch (err) {
      if (dockerStatus(err) === 404) return null;
      throw err;
    }
    const startedAt = Date.parse(info.State.StartedAt);
    const began = info.State.Status !== 'created' && Number.isFinite(startedAt) && startedAt > 0;
    return { container, deadline: (began ? startedAt : Date.now()) + timeoutMs };
  }

  private async isStarted(container: Docker.Container): Promise<boolean> {
    const info = await container.inspect();
    return info.State.Status !== 'created';
  }

  private async ensureImage(target: StoredContainerTarget): Promise<void> {
    const { image, pullPolicy } = target;
    if (pullPolicy !== 'always') {
      try {
        await this.docker.getImage(image).inspect();
        return;
      } catch (err) {
        if (dockerStatus(err) !== 404) throw err;
      }
      if (pullPolicy === 'never') {
        throw new ImageError(`image '${image}' is not on the Docker Engine and pullPolicy is "never"`);
      }
    }
    await this.pull(image);
  }

  private async pull(image: string): Promise<void> {
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.docker.pull(image);
    } catch (err) {
      throw new ImageError(`could not pull image '${image}': ${dockerMessage(err)}`);
    }
    await new Promise<void>((resolve, reject) => {
      this.docker.modem.followProgress(
        stream,
        (err: Error | null, events: Array<{ error?: string; errorDetail?: { message?: string } }>) => {
          const failed = events?.find((e) => e.error || e.errorDetail);
          const message = err ? dockerMessage(err) : (failed?.errorDetail?.message ?? failed?.error);
          if (message) reject(new ImageError(`could not pull image '${image}': ${message}`));
          else resolve();
        },
      );
    });
  }

  private spec(
    name: string,
    target: StoredContainerTarget,
    payloadJson: string,
    ctx: HandlerContext,
  ): Docker.ContainerCreateOptions {
    const env = Object.entries(target.env ?? {}).map(([k, v]) => `${k}=${v}`);
    env.push(
      `BELFRY_RUN_ID=${ctx.runId}`,
      `BELFRY_JOB_ID=${ctx.jobId}`,
      `BELFRY_SCHEDULED_TIME=${ctx.scheduledTime.toISOString()}`,
      `BELFRY_ATTEMPT=${ctx.attempt}`,
      `BELFRY_PAYLOAD=${payloadJson}`,
    );
    const memory = target.memoryMb * 1024 * 1024;
    const spec: Docker.ContainerCreateOptions = {
      name,
      Image: target.image,
      Env: env,
      Labels: {
        ...this.options.labels,
        [LABELS.runId]: ctx.runId,
        [LABELS.attempt]: String(ctx.attempt),
        [LABELS.tenantId]: ctx.tenantId,
        [LABELS.jobId]: ctx.jobId,
      },
      Tty: false,
      AttachStdin: false,
      AttachStdout: false,
      AttachStderr: false,
      NetworkDisabled: target.network === 'none',
      HostConfig: {
        Privileged: false,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        PidsLimit: this.pidsLimit,
        Memory: memory,
        MemorySwap: memory,
        NanoCpus: Math.round(target.cpus * 1e9),
        NetworkMode: target.network,
        // A real PID 1 (docker-init): signals reach the command, zombies are reaped.
        Init: true,
        AutoRemove: false,
        LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
      },
    };
    if (target.command) spec.Cmd = target.command;
    if (target.entrypoint) spec.Entrypoint = target.entrypoint;
    if (target.workingDir) spec.WorkingDir = target.workingDir;
    if (target.user) spec.User = target.user;
    return spec;
  }

  /** Waits for the container to exit (stopping it past the deadline or on abort), collects, removes. */
  private async superviseAndCollect(
    container: Docker.Container,
    deadline: number,
    ctx: HandlerContext,
  ): Promise<Result> {
    const exited = container.wait({ condition: 'not-running' }).then(
      (r: { StatusCode?: number }) => ({ code: r?.StatusCode ?? null }),
      (err: unknown) => ({ code: null, err }),
    );
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<'timeout' | 'aborted'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, Math.min(deadline - Date.now(), 2 ** 31 - 1)));
      onAbort = () => resolve('aborted');
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener('abort', onAbort, { once: true });
    });
    const first = await Promise.race([exited, stopped]);
    clearTimeout(timer);
    if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
    let why: 'timeout' | 'aborted' | null = null;
    if (first === 'timeout' || first === 'aborted') {
      why = first;
      await this.stop(container, exited);
    }
    const done = await exited;
    try {
      return await this.collect(container, why, ctx, 'err' in done ? done.err : undefined);
    } finally {
      await this.remove(container);
    }
  }

  /** SIGTERM, then SIGKILL after the grace period if it is still running. */
  private async stop(container: Docker.Container, exited: Promise<unknown>): Promise<void> {
    await container.kill({ signal: 'SIGTERM' }).catch(() => {});
    const grace = sleep(this.killGraceMs).then(() => 'grace' as const);
    if ((await Promise.race([exited, grace])) === 'grace') {
      await container.kill({ signal: 'SIGKILL' }).catch(() => {});
    }
  }

  private async collect(
    container: Docker.Container,
    why: 'timeout' | 'aborted' | null,
    ctx: HandlerContext,
    waitError: unknown,
  ): Promise<Result> {
    const info = await container.inspect();
    const exitCode = info.State.Running ? null : info.State.ExitCode;
    const raw = (await container
      .logs({ stdout: true, stderr: true, follow: false, tail: LOG_TAIL_LINES })
      .catch(() => Buffer.alloc(0))) as unknown as Buffer;
    const responseSnippet = tailText(demuxLogs(Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw ?? ''))));
    const facts = { exitCode, responseSnippet };
    if (why === 'timeout') return fail('timeout', `timed out after ${Math.round(ctx.timeoutMs / 1000)} s`, facts);
    if (why === 'aborted') return fail('connection', 'stopped: the run was cancelled or taken back', facts);
    if (waitError && info.State.Running) {
      return fail('connection', `lost the container while waiting: ${dockerMessage(waitError)}`, facts);
    }
    if (info.State.OOMKilled)
      return fail('exit', `out of memory (killed at the ${info.HostConfig.Memory ?? 0} byte limit)`, facts);
    if (exitCode === 0) return { ok: true, ...facts };
    if (info.State.Error) return fail('exit', `container failed: ${info.State.Error}`, facts);
    return fail('exit', `exited with code ${exitCode}`, facts);
  }

  private async remove(container: Docker.Container): Promise<void> {
    // A removal that fails (engine busy) is retried by the sweeper: the outcome is what matters here.
    await container.remove({ force: true }).catch(() => {});
  }
}
