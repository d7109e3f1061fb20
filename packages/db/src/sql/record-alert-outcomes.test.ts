import { describe, expect, it } from 'vitest';
import { summarizeAlertOutcomes } from './record-alert-outcomes';

const o = (runId: string, jobId: string, status: string) => ({ runId, jobId, tenantId: 'ten_1', status });

describe('summarizeAlertOutcomes', () => {
  it('counts failures after the last success of each job, in order, and keeps the last dead run', () => {
    const jobs = summarizeAlertOutcomes([
      o('r1', 'job_b', 'failed'),
      o('r2', 'job_a', 'dead'),
      o('r3', 'job_b', 'succeeded'),
      o('r4', 'job_b', 'failed'),
      o('r5', 'job_b', 'dead'),
      o('r6', 'job_a', 'cancelled'),
      o('r7', 'job_c', 'pending'),
    ]);
    expect(jobs).toEqual([
      { tenantId: 'ten_1', jobId: 'job_a', successRunId: null, failures: 1, lastFailedRunId: 'r2', deadRunId: 'r2' },
      { tenantId: 'ten_1', jobId: 'job_b', successRunId: 'r3', failures: 2, lastFailedRunId: 'r5', deadRunId: 'r5' },
    ]);
  });

  it('a success after failures clears them', () => {
    expect(summarizeAlertOutcomes([o('r1', 'job_a', 'dead'), o('r2', 'job_a', 'succeeded')])).toEqual([
      { tenantId: 'ten_1', jobId: 'job_a', successRunId: 'r2', failures: 0, lastFailedRunId: null, deadRunId: null },
    ]);
  });
});
