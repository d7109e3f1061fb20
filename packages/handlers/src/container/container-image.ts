// The image of a `container` target per its pull policy: `always` pulls; `if-missing`
// pulls only when the Docker Engine lacks it; `never` refuses a missing image.
import type Docker from 'dockerode';
import { dockerMessage, dockerStatus } from './docker';
import type { StoredContainerTarget } from './schema';

/** The image could not be had: the attempt fails as `image`. */
export class ImageError extends Error {}

export async function ensureImage(docker: Docker, target: StoredContainerTarget): Promise<void> {
  const { image, pullPolicy } = target;
  if (pullPolicy !== 'always') {
    try {
      await docker.getImage(image).inspect();
      return;
    } catch (err) {
      if (dockerStatus(err) !== 404) throw err;
    }
    if (pullPolicy === 'never') {
      throw new ImageError(`image '${image}' is not on the Docker Engine and pullPolicy is "never"`);
    }
  }
  await pullImage(docker, image);
}

async function pullImage(docker: Docker, image: string): Promise<void> {
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.pull(image);
  } catch (err) {
    throw new ImageError(`could not pull image '${image}': ${dockerMessage(err)}`);
  }
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
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
