import { describe, expect, it } from 'vitest';
import { DEFAULT_TARGET, hotBytesPerJob, type SizingInputs, sizing } from './sizing';

const inputs: SizingInputs = {
  engineCpuMsPerRun: 0.25,
  postgresCpuMsPerRun: 0.3,
  walBytesPerRun: 2_000,
  historyBytesPerRun: 500,
  bytesPerJob: 638,
  hotBytesPerJob: 239,
};

describe('sizing', () => {
  it('derives cores, nodes, WAL, disk and memory for 10,000/s and 100M jobs', () => {
    const s = sizing(inputs);
    // 10,000/s × 0.25 ms = 2.5 busy cores; ÷ 0.7 = 3.57 → 4 cores, one core per node → 4 nodes
    expect(s.engine).toEqual({ busyCores: 2.5, cores: 4, nodes: 4 });
    // 10,000/s × 0.3 ms = 3 busy cores; ÷ 0.7 = 4.29 → 5 cores; 10,000 × 2,000 B = 20 MB/s of WAL
    expect(s.postgres).toEqual({ busyCores: 3, cores: 5, walMBPerSecond: 20 });
    expect(s.jobsDiskGB).toBe(63.8);
    expect(s.hotMemoryGB).toBe(23.9);
    // 864M runs a day × 500 B
    expect(s.historyDiskGBPerDay).toBe(432);
    expect(s.historyDiskGB).toBe(12_960);
  });

  it('leaves out what was not measured', () => {
    const s = sizing({ ...inputs, engineCpuMsPerRun: null, walBytesPerRun: null, bytesPerJob: null });
    expect(s.engine).toBeNull();
    expect(s.postgres?.walMBPerSecond).toBeNull();
    expect(s.jobsDiskGB).toBeNull();
    expect(s.hotMemoryGB).toBe(23.9);
  });

  it('plans nodes by the cores one node can use', () => {
    const s = sizing(inputs, { ...DEFAULT_TARGET, coresPerNode: 2 });
    expect(s.engine?.nodes).toBe(2);
    expect(sizing({ ...inputs, engineCpuMsPerRun: 0.001 }).engine?.nodes).toBe(1);
  });
});

describe('hot bytes per job', () => {
  it('adds every index of jobs, not the jobs heap', () => {
    expect(
      hotBytesPerJob({
        jobs: 303,
        jobs_pkey: 65,
        jobs_tenant_status_idx: 47,
        jobs_tenant_name_idx: 48,
        jobs_due_idx: 40,
        jobs_pull_queue_idx: 0,
      }),
    ).toBe(200);
    expect(hotBytesPerJob({ jobs: 303, jobs_pkey: 65 })).toBeNull();
  });
});
