// The first-run demo tenant: created once, when the database has no tenants at all.
import type { ServiceDeps } from './context';
import { insertTenant, prepareTenant, type CreateTenantInput } from './services/tenants';

export const DEMO_EMAIL = 'demo@belfry.local';

export interface SeedResult {
  created: boolean;
  email?: string;
  password?: string;
  apiKey?: string;
  tenantId?: string;
}

export async function seedDemoTenant(deps: ServiceDeps, password: string): Promise<SeedResult> {
  const input: CreateTenantInput = {
    name: 'Demo',
    owner: { email: DEMO_EMAIL, password, name: 'Demo Owner' },
    apiKey: { name: 'demo key' },
  };
  const prepared = await prepareTenant(input);
  // Serialise concurrent first starts so only one seeds.
  return deps.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(4242001)`;
    const count = await tx.tenant.count();
    if (count > 0) return { created: false };
    const created = await insertTenant(tx, deps.keyring, input, prepared);
    // Whoever started this installation runs it: the demo login sees the whole cluster.
    if (created.userId) await tx.user.update({ where: { id: created.userId }, data: { isOperator: true } });
    return { created: true, email: DEMO_EMAIL, password, apiKey: created.apiKey ?? '', tenantId: created.tenantId };
  });
}
