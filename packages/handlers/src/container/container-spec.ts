// The create request of a `container` target's attempt: a locked-down container named by run
// and attempt — no privileges, every capability dropped, no-new-privileges, a pids limit, the
// memory and CPU limits given, no network unless `bridge` — with the run's facts in its
// environment and labels the sweeper finds it by.
import type Docker from 'dockerode';
import type { HandlerContext } from '../types';
import { LABELS } from './docker';
import type { StoredContainerTarget } from './schema';

/** Linux refuses a single environment string longer than this (MAX_ARG_STRLEN). */
export const MAX_ENV_STRING = 128 * 1024 - 1;

export interface SpecLimits {
  pidsLimit: number;
  /** more labels for every container (the engine's deployment id) */
  labels?: Record<string, string>;
}

export function containerSpec(
  name: string,
  target: StoredContainerTarget,
  payloadJson: string,
  ctx: HandlerContext,
  limits: SpecLimits,
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
      ...limits.labels,
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
      PidsLimit: limits.pidsLimit,
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
