// pull: no broker — the tenants' own workers claim the runs from Belfry. Starts the REST API in
// a process of its own (as a web node serves it), an API key with the queues:consume scope per
// tenant, and one worker per tenant claiming 100 at a time (long-polling) and completing each
// run through REST. A run counts as arrived when its claim answered (its start), recorded once
// its completion is accepted, so the scenario waits for every run to be completed.
import pg from 'pg';
import { startRestServer } from '../lib/harness';
import { insertConsumerKeys, startPullWorkers } from '../lib/pull-workers';
import type { SinkRecord } from '../lib/sink';
import type { KindBench } from './kind';

export const pullBench: KindBench = {
  kind: 'pull',
  async start({ databaseUrl, tenants, runTag }) {
    const queue = `bench-${runTag}`;
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const rest = await startRestServer(databaseUrl);
    const records: SinkRecord[] = [];
    try {
      const keys = await insertConsumerKeys(pool, tenants);
      const workers = startPullWorkers({
        restUrl: rest.url,
        queue,
        keys,
        workersPerTenant: 1,
        batch: 100,
        onCompleted: ({ run }, claimedAt) => {
          records.push({
            at: claimedAt,
            runId: run.id,
            jobId: run.jobId,
            scheduled: Date.parse(run.scheduledTime),
            attempt: run.attempt,
          });
        },
      });
      return {
        target: { type: 'pull', queue },
        // A lease lasts at most the job's timeoutSeconds: room for a loaded machine to complete a batch.
        timeoutSeconds: 300,
        records,
        failure: () => workers.failure(),
        async stop() {
          await workers.stop();
          await rest.stop();
          await pool.end();
        },
      };
    } catch (err) {
      await rest.stop();
      await pool.end();
      throw err;
    }
  },
};
