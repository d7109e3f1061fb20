// Looks after the Belfry containers on this node's Docker Engine (those labelled with this
// deployment's id), every few seconds:
// - a container whose run still runs under a live lease is someone's to supervise: left alone;
// - one whose run's lease expired (the node that started it died) is ADOPTED: this node takes
//   the run over with the same attempt and its worker pool waits for the container and records
//   its outcome once (killing it first if it is past its timeout);
// - one whose run has moved on (its outcome recorded, reaped, cancelled, paused, deleted) is
//   stopped if it still runs, and removed.
// The reaper leaves container runs alone while their container exists (ContainerPresence), so a
// run is never started a second time beside a container that still lives.
import { idTime, PeriodicTask } from '@belfry/core';
import { adoptContainerRun, type ClaimedRun, selectContainerRuns } from '@belfry/db';
import { CONTAINER_LABELS, containerName, dockerStatus } from '@belfry/handlers';
import type Docker from 'dockerode';
import { FailureStreak } from '@belfry/log';
import type pg from 'pg';
import type { Log } from '../logger';
import type { ContainerPresence } from '../maintenance/reaper';
import type { DockerEngine } from './docker-engine';

export const DEPLOYMENT_LABEL = 'belfry.deployment';

/** How long a created, never-started container whose run moved on is left before it is removed. */
const CREATED_GRACE_SECONDS = 60;

export interface ContainerSweeperConfig {
  workerId: string;
  /** this deployment's id (belfry_settings), on every container it starts */
  deploymentId: string;
  runLeaseMs: number;
  intervalMs: number;
  /** SIGTERM → SIGKILL when stopping a container whose run moved on */
  killGraceSeconds: number;
}

export interface SweepResult {
  adopted: number;
  stopped: number;
  removed: number;
}

export class ContainerSweeper implements ContainerPresence {
  private readonly loop: PeriodicTask;
  private readonly docker: Docker;

  constructor(
    private readonly pool: pg.Pool,
    private readonly engine: DockerEngine,
    /** hands an adopted run to the worker pool; false when it cannot take it (stopping) */
    private readonly adopt: (run: ClaimedRun) => boolean,
    private readonly config: ContainerSweeperConfig,
    private readonly log: Log,
  ) {
    this.docker = engine.docker;
    const failures = new FailureStreak(log, 'container sweep', 'warn');
    this.loop = new PeriodicTask(
      () => this.sweepOnce(),
      config.intervalMs,
      (err) => failures.failed(err),
      () => failures.succeeded(),
    );
  }

  engineId(): string | null {
    return this.engine.engineId;
  }

  async exists(runId: string, attempt: number): Promise<boolean> {
    try {
      await this.docker.getContainer(containerName(runId, attempt)).inspect();
      return true;
    } catch (err) {
      if (dockerStatus(err) === 404) return false;
      throw err;
    }
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async sweepOnce(): Promise<SweepResult> {
    const result: SweepResult = { adopted: 0, stopped: 0, removed: 0 };
    if (!this.engine.available) return result;
    const containers = await this.docker.listContainers({
      all: true,
      filters: { label: [CONTAINER_LABELS.runId, `${DEPLOYMENT_LABEL}=${this.config.deploymentId}`] },
    });
    const found = containers.flatMap((c) => {
      const runId = c.Labels[CONTAINER_LABELS.runId] ?? '';
      const attempt = Number(c.Labels[CONTAINER_LABELS.attempt]);
      const scheduledTime = idTime(runId);
      return scheduledTime && Number.isInteger(attempt) ? [{ c, runId, attempt, scheduledTime }] : [];
    });
    if (!found.length) return result;
    const runs = await selectContainerRuns(
      this.pool,
      found.map((f) => f.runId),
      found.map((f) => f.scheduledTime),
    );
    const byId = new Map(runs.map((r) => [r.id, r]));
    for (const f of found) {
      const run = byId.get(f.runId);
      const current = run && run.status === 'running' && run.attempt === f.attempt;
      if (current && !run.expired) continue; // supervised by the node holding it
      if (current) {
        const adopted = await adoptContainerRun(this.pool, this.config.workerId, this.config.runLeaseMs, {
          id: f.runId,
          scheduledTime: f.scheduledTime,
          attempt: f.attempt,
        });
        if (adopted && this.adopt(adopted)) {
          result.adopted++;
          this.log.warn(
            { runId: f.runId, attempt: f.attempt, previousWorker: run.worker_id },
            'adopted a container whose node stopped heartbeating',
          );
        }
        continue;
      }
      // Created but not started yet: whoever created it is probably about to start it (a listing
      // taken between the two calls). Judged at a later sweep, once it runs or has sat too long.
      if (f.c.State === 'created' && Date.now() / 1000 - f.c.Created < CREATED_GRACE_SECONDS) continue;
      // Its run moved on: the outcome was recorded, or the run was reaped, cancelled or deleted.
      const container = this.docker.getContainer(f.c.Id);
      if (f.c.State === 'running' || f.c.State === 'paused' || f.c.State === 'restarting') {
        await container.stop({ t: this.config.killGraceSeconds }).catch(() => {});
        result.stopped++;
        this.log.warn(
          { runId: f.runId, attempt: f.attempt, status: run?.status ?? 'gone' },
          'stopped a container whose run moved on',
        );
      }
      await container
        .remove({ force: true })
        .then(() => result.removed++)
        .catch((err) => {
          if (dockerStatus(err) !== 404)
            this.log.warn({ err, runId: f.runId }, 'could not remove a finished container');
        });
    }
    return result;
  }
}
