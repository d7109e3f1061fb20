// What the operator allows a target to be, beyond its form: a container target's image must
// match BELFRY_CONTAINER_IMAGES (ServiceDeps.containerImages; unset allows none). Refused
// with 422 at create and update time, so a job that could never run is not stored.
import { ImageAllowList, type StoredTarget } from '@belfry/handlers/schemas';
import type { ServiceDeps } from '../context';
import { AppError } from '../errors';

const NONE = ImageAllowList.parse(undefined);

/** `at` is where the target sits in the request (`target`, or `jobs.3.target` in a batch). */
export function assertTargetAllowed(
  deps: Pick<ServiceDeps, 'containerImages'>,
  target: StoredTarget | undefined,
  at: (string | number)[] = ['target'],
): void {
  if (target?.type !== 'container') return;
  const refusal = (deps.containerImages ?? NONE).refusal(target.image);
  if (refusal) {
    throw new AppError('unprocessable', refusal, { errors: [{ path: [...at, 'image'].join('.'), message: refusal }] });
  }
}
