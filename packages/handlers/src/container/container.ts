// Runs one attempt of a `container` target: the image per its pull policy (container-image.ts),
// a locked-down container named by run and attempt (container-spec.ts), started, then waited for,
// stopped past its timeout or on any abort, collected and removed (container-run.ts), so a run
// never has a container left running that nobody answers for. An attempt resumed after its
// node died adopts the container that node started (found by name) instead of starting another.
import type Docker from 'dockerode';
import type { HandlerContext, HandlerOutcome, Handler } from '../types';
import { containerName, dockerMessage, dockerStatus } from './docker';
import { ensureImage, ImageError } from './container-image';
import { fail, removeContainer, type Result, superviseAndCollect } from './container-run';
import { containerSpec, MAX_ENV_STRING } from './container-spec';
import type { ImageAllowList } from './images';
import type { StoredContainerTarget } from './schema';

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
        await ensureImage(this.docker, target);
      } catch (err) {
        if (err instanceof ImageError) return fail('image', err.message);
        throw err;
      }
      try {
        container = await this.docker.createContainer(
          containerSpec(name, target, payloadJson, ctx, { pidsLimit: this.pidsLimit, labels: this.options.labels }),
        );
      } catch (err) {
        // Created already (by this attempt on a node that died, or a retry of this call): adopt it.
        if (dockerStatus(err) !== 409)
          return fail('connection', `could not create the container: ${dockerMessage(err)}`);
        const found = await this.adopt(name, ctx.timeoutMs);
        if (!found) return fail('connection', `could not create the container: ${dockerMessage(err)}`);
        ({ container, deadline } = found);
      }
      if (ctx.signal.aborted) {
        await removeContainer(container);
        return fail('connection', 'not started: stopped before the container started');
      }
      if (!(await this.isStarted(container))) {
        try {
          await container.start();
        } catch (err) {
          await removeContainer(container);
          return fail('connection', `could not start the container: ${dockerMessage(err)}`);
        }
        deadline = Date.now() + ctx.timeoutMs;
      }
    }
    return superviseAndCollect(container, deadline, ctx, this.killGraceMs);
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
}
