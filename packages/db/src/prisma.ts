// The Prisma client (Prisma 7, driver adapter over node-postgres) for everything that is not
// on the hot path. Hot-path SQL lives in ./sql, one operation per file.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export type { PrismaClient };
export * as Prisma from './generated/prisma/client';

export function createPrisma(url: string, options: { max?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({ connectionString: url, max: options.max ?? 10 });
  return new PrismaClient({ adapter });
}
