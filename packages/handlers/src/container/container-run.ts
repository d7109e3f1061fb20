// The life of a started container: waited for; past the attempt's deadline, or on any abort
// (cancel, pause, lost lease, shutdown), SIGTERM and, `killGraceMs` later, SIGKILL. Its exit
// code and the last 4 KiB of its output are collected, then it is removed.
import type { FailureKind } from '@belfry/core';
import type Docker from 'dockerode';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HandlerContext, HandlerOutcome } from '../types';
import { dockerMessage } from './docker';
import { demuxLogs, tailText } from './output';

const LOG_TAIL_LINES = 4096;

export type Result = Omit<HandlerOutcome, 'durationMs'>;

export const fail = (failure: FailureKind, error: string, extra: Partial<Result> = {}): Result => ({
  ok: false,
  failure,
  error,
  ...extra,
});

/** Waits for the container to exit (stopping it past the deadline or on abort), collects, removes. */
export async function superviseAndCollect(
  container: Docker.Container,
  deadline: number,
  ctx: HandlerContext,
  killGraceMs: number,
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
    await stopContainer(container, exited, killGraceMs);
  }
  const done = await exited;
  try {
    return await collect(container, why, ctx, 'err' in done ? done.err : undefined);
  } finally {
    await removeContainer(container);
  }
}

/** SIGTERM, then SIGKILL after the grace period if it is still running. */
async function stopContainer(
  container: Docker.Container,
  exited: Promise<unknown>,
  killGraceMs: number,
): Promise<void> {
  await container.kill({ signal: 'SIGTERM' }).catch(() => {});
  const grace = sleep(killGraceMs).then(() => 'grace' as const);
  if ((await Promise.race([exited, grace])) === 'grace') {
    await container.kill({ signal: 'SIGKILL' }).catch(() => {});
  }
}

async function collect(
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

export async function removeContainer(container: Docker.Container): Promise<void> {
  // A removal that fails (engine busy) is retried by the sweeper: the outcome is what matters here.
  await container.remove({ force: true }).catch(() => {});
}
