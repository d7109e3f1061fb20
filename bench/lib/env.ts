// The bench's one reader of process.env (biome's noProcessEnv is off only in env modules):
// where its brokers and database are, whether to profile the processes it starts, and the
// environment it hands them (engine nodes, the API process, peers' workers).

// An empty variable counts as unset.
const read = (name: string): string | undefined => process.env[name] || undefined;

export const benchEnv = Object.freeze({
  /** set: an external PostgreSQL (the API child process gets the bench database's URL here) */
  DATABASE_URL: read('DATABASE_URL'),
  /** a directory: each engine node, API and peer worker process writes a V8 CPU profile there on exit */
  BENCH_CPU_PROF: read('BENCH_CPU_PROF'),
  /** a directory: each engine node's log (bench-<n>.log; BELFRY_LOG_LEVEL=debug for more) is kept there */
  BENCH_ENGINE_LOG_DIR: read('BENCH_ENGINE_LOG_DIR'),
  BENCH_AMQP_URL: read('BENCH_AMQP_URL') ?? 'amqp://guest:guest@127.0.0.1:5672',
  BENCH_NATS_URL: read('BENCH_NATS_URL') ?? 'nats://127.0.0.1:4222',
});

/** node's flags for a child process: a CPU profile into BENCH_CPU_PROF when it is set. */
export function cpuProfArgs(): string[] {
  return benchEnv.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${benchEnv.BENCH_CPU_PROF}`] : [];
}

/** A child process's environment: this process's, with `extra` on top (undefined removes a variable). */
export { childProcessEnv as childEnv } from '@belfry/db';
