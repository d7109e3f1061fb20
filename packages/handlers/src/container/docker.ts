// The Docker Engine connection (BELFRY_DOCKER_HOST: unix:///path, tcp://host:port or
// http(s)://host:port) and the names and labels Belfry gives its containers. A container is
// named by its run and attempt, so a second `create` for the same attempt collides (409)
// instead of starting it twice, and any node on the same engine can find it again.
import Docker from 'dockerode';

export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

export const LABELS = {
  runId: 'belfry.run-id',
  attempt: 'belfry.attempt',
  tenantId: 'belfry.tenant-id',
  jobId: 'belfry.job-id',
} as const;

/** Null for a usable BELFRY_DOCKER_HOST, else why it is not. */
export function dockerHostProblem(host: string): string | null {
  try {
    dockerOptions(host);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function dockerOptions(host: string): Docker.DockerOptions {
  if (host.startsWith('unix://')) {
    const socketPath = host.slice('unix://'.length);
    if (!socketPath.startsWith('/')) throw new Error('a unix:// Docker host needs an absolute socket path');
    return { socketPath };
  }
  let url: URL;
  try {
    url = new URL(host);
  } catch {
    throw new Error(`'${host}' is not unix:///path, tcp://host:port or http(s)://host:port`);
  }
  if (!['tcp:', 'http:', 'https:'].includes(url.protocol) || !url.hostname || !url.port) {
    throw new Error(`'${host}' is not unix:///path, tcp://host:port or http(s)://host:port`);
  }
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port),
    protocol: url.protocol === 'https:' ? 'https' : 'http',
  };
}

export function connectDocker(host: string = DEFAULT_DOCKER_HOST): Docker {
  return new Docker({ ...dockerOptions(host), timeout: 0 });
}

export function containerName(runId: string, attempt: number): string {
  return `belfry-${runId}-${attempt}`;
}

/** The Docker API's error status (404 no such container/image, 409 name in use), if any. */
export function dockerStatus(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The daemon's own message from a Docker API error, else the error's. */
export function dockerMessage(err: unknown): string {
  const e = err as { json?: { message?: unknown }; reason?: unknown; message?: unknown };
  if (e?.json && typeof e.json.message === 'string') return e.json.message;
  return typeof e?.message === 'string' ? e.message : String(err);
}
