// This node's Docker Engine, watched: it answers (ping) or it does not, and its ID (from
// `docker info`) — which tells other nodes whether they share it. The container lane has slots
// only while the engine answers, so a node whose engine went away takes no container runs.
import { EventEmitter } from 'node:events';
import type Docker from 'dockerode';
import type { Log } from '../logger';

export interface DockerEngineState {
  available: boolean;
  engineId: string | null;
  error: string | null;
}

export class DockerEngine extends EventEmitter<{ change: [DockerEngineState] }> {
  private timer: NodeJS.Timeout | undefined;
  private state: DockerEngineState = { available: false, engineId: null, error: 'not checked yet' };

  constructor(
    readonly docker: Docker,
    private readonly log: Log,
    private readonly intervalMs = 5_000,
  ) {
    super();
  }

  get available(): boolean {
    return this.state.available;
  }

  get engineId(): string | null {
    return this.state.available ? this.state.engineId : null;
  }

  get error(): string | null {
    return this.state.error;
  }

  async start(): Promise<void> {
    await this.check();
    const loop = () => {
      this.timer = setTimeout(() => void this.check().finally(loop), this.intervalMs);
      this.timer.unref();
    };
    loop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  async check(): Promise<void> {
    let next: DockerEngineState;
    try {
      if (this.state.available && this.state.engineId) {
        await this.docker.ping();
        next = this.state;
      } else {
        const info = (await this.docker.info()) as { ID?: string };
        next = { available: true, engineId: info.ID ?? null, error: null };
      }
    } catch (err) {
      next = { available: false, engineId: this.state.engineId, error: (err as Error).message };
    }
    const changed = next.available !== this.state.available || next.engineId !== this.state.engineId;
    this.state = next;
    if (changed) {
      if (next.available) this.log.info({ engineId: next.engineId }, 'Docker Engine answers: serving container runs');
      else this.log.warn({ err: next.error }, 'Docker Engine does not answer: no container runs taken');
      this.emit('change', next);
    }
  }
}
