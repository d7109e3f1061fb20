// Transactions on a node-postgres client. Domain writes that touch several tables (a job and
// its schedule entry, a run and its queue message) go through here so they commit together.

/** What a query needs: a pool, or a client inside BEGIN. One type for every package: @belfry/db's. */
export type { Queryable } from '@belfry/db';

// Deadlocks (the engine's scheduler locks schedule entries, then jobs; we lock jobs, then
// entries) and serialization failures are resolved by running the whole transaction again.
export { withTransaction } from '@belfry/db';
