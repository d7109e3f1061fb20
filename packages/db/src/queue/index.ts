// Everything that touches pg-boss and its tables: the client, queue names, enqueueing, taking
// messages for a claim, the workers' discovery query, depth, inspection and schema install. No
// other module names a pgboss.* table.
export * from './names';
export * from './client';
export * from './enqueue';
export * from './take';
export * from './depth';
export * from './discover';
export * from './inspect';
export * from './schema';
export * from './pull';
export * from './pull-list';
export * from './pull-wakeups';
