// The audit log: who did what to which object, written in the same transaction as the change.
import type { Prisma } from '@belfry/db';
import type { Actor } from '../context';

type Tx = { auditLog: { create(args: { data: Prisma.Prisma.AuditLogUncheckedCreateInput }): Promise<unknown> } };

export async function audit(
  tx: Tx,
  actor: Actor,
  action: string,
  targetType: string,
  targetId: string | null,
  details: Record<string, unknown>,
): Promise<void> {
  await tx.auditLog.create({
    data: {
      tenantId: actor.tenantId,
      actorType: actor.type,
      actorId: actor.id,
      action,
      targetType,
      targetId,
      details: details as Prisma.Prisma.InputJsonValue,
    },
  });
}
