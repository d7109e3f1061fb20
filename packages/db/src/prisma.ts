// The Prisma client (Prisma 7, driver adapter over node-postgres) for everything that is not
// on the hot path. Hot-path SQL lives in ./sql, one operation per file.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export type { PrismaClient };
export * as Prisma from './generated/prisma/client';

export function createPrisma(
  url: string,
  options: { max?: number; onError?: (err: Error) => void } = {},
): PrismaClient {
  // The adapter listens for errors of its pool's idle and checked-out connections (a restart
  // must not crash the process); we are told about them. Connects are bounded as in createPool.
  const adapter = new PrismaPg(
    { connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: 10_000, keepAlive: true },
    { onPoolError: (err) => options.onError?.(err), onConnectionError: (err) => options.onError?.(err) },
  );
  return new PrismaClient({ adapter });
}
