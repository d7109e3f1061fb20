// Database access: connection resolution (external or embedded PostgreSQL), migrations, the
// Prisma client, and raw SQL for hot paths.
export * from './env';
export * from './paths';
export * from './embedded';
export * from './connection';
export * from './migrate';
export * from './prisma';
export * from './local-secrets';
export * from './queue/index';
