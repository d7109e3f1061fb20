// The target kinds the job form offers, in the order of its kind selector: one line per kind.
import { amqpUi } from './amqp-target';
import { containerUi } from './container-target';
import { httpUi } from './http-target';
import type { TargetKindUi } from './kind';
import { natsUi } from './nats-target';
import { pullUi } from './pull-target';

export const TARGET_UIS: TargetKindUi[] = [httpUi, amqpUi, natsUi, pullUi, containerUi] as unknown as TargetKindUi[];

/** The UI of a kind; an unknown kind (a newer server) falls back to a plain description. */
export function targetUi(type: string): TargetKindUi | undefined {
  return TARGET_UIS.find((k) => k.type === type);
}

/** One line for lists, whatever the kind. */
export function targetSummary(target: { type: string }): string {
  return targetUi(target.type)?.summary(target as never) ?? target.type;
}
