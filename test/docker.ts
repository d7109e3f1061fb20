// Docker for tests: the local engine (BELFRY_DOCKER_HOST or the default socket) and a tiny
// test image built locally — nothing is pulled (there is no registry here): FROM scratch with
// Debian's static busybox. Built once; later calls find it.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectDocker, DEFAULT_DOCKER_HOST } from '@belfry/handlers';
import { childEnv, testEnv } from './env';

export const TEST_IMAGE = 'belfry-test/busybox:1';
const BUSYBOX = ['/bin/busybox', '/usr/bin/busybox'];

export function testDocker() {
  return connectDocker(testEnv.BELFRY_DOCKER_HOST ?? DEFAULT_DOCKER_HOST);
}

let building: Promise<void> | undefined;

/** Builds TEST_IMAGE unless the engine has it (needs Debian's busybox-static for a static binary). */
export function ensureTestImage(): Promise<void> {
  building ??= build();
  return building;
}

async function build(): Promise<void> {
  const docker = testDocker();
  try {
    await docker.getImage(TEST_IMAGE).inspect();
    return;
  } catch {}
  const dir = await mkdtemp(join(tmpdir(), 'belfry-image-'));
  try {
    let copied = false;
    for (const path of BUSYBOX) {
      try {
        await copyFile(path, join(dir, 'busybox'));
        copied = true;
        break;
      } catch {}
    }
    if (!copied) throw new Error('no busybox binary (apt-get install busybox-static)');
    await writeFile(
      join(dir, 'Dockerfile'),
      'FROM scratch\nCOPY busybox /bin/busybox\nRUN ["/bin/busybox", "--install", "-s", "/bin"]\n',
    );
    const host = testEnv.BELFRY_DOCKER_HOST;
    await promisify(execFile)('docker', ['build', '-q', '-t', TEST_IMAGE, dir], {
      env: childEnv(host ? { DOCKER_HOST: host } : {}),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Belfry containers of a run (any attempt), running or not. */
export async function containersOfRun(runId: string) {
  return testDocker().listContainers({ all: true, filters: { label: [`belfry.run-id=${runId}`] } });
}
