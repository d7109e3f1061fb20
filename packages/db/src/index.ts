// Database access: connection resolution (external or embedded PostgreSQL), migrations, the
// Prisma client, and raw SQL for hot paths.
export * from './env';
export * from './startup-error';
export * from './paths';
export * from './embedded';
export * from './embedded-binaries';
export * from './connection';
export * from './transaction';
export * from './migrate';
export * from './prisma';
export * from './local-secrets';
export * from './schedule-spec';
export * from './queue/index';
export * from './sql/types';
export * from './sql/lock-partition-leases';
export * from './sql/select-due-entries';
export * from './sql/insert-scheduled-runs';
export * from './sql/advance-schedule';
export * from './sql/claim-runs';
export * from './sql/complete-runs';
export * from './sql/extend-run-leases';
export * from './sql/select-expired-runs';
export * from './sql/fail-expired-runs';
export * from './sql/complete-finished-jobs';
export * from './sql/cancel-claimed-ahead';
export * from './sql/adopt-container-runs';
